package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ConflictError is a task whose dependencies' work does not merge: the
// merge was aborted and nothing of the task's worktree or branch was left.
type ConflictError struct {
	Branch  string   // the branch Prepare was making
	Base    string   // its first start point
	Merging string   // the start point whose merge conflicted
	Paths   []string // the conflicting paths, relative to the repository
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("branch %s (from %s): merging %s conflicts in %s",
		e.Branch, e.Base, e.Merging, strings.Join(e.Paths, ", "))
}

// Prepare returns the worktree at path on branch, making it when needed:
//   - a worktree already at path on branch is reused (rehydration, --resume);
//     one on another branch is an error, and one that is no longer what
//     warden made (Worktree.Verify) a *RefusedError;
//   - a symbolic link (or anything but a directory) at path, or in place of
//     the directory holding it, is a *RefusedError: never followed;
//   - an existing branch without a worktree (its directory was deleted) is
//     checked out again at path, with its commits (from is not used);
//   - else branch is made from from[0] and each further start point is
//     merged in (a task with several dependencies). When a merge
//     conflicts, it is aborted, the worktree and the branch are removed,
//     and the error is a *ConflictError.
//
// A start point is anything git resolves to a commit (a branch, a tag, a
// commit). Whatever fails, nothing half-made is left: a worktree or branch
// made by this call is removed again.
func (r Repo) Prepare(ctx context.Context, path, branch string, from []string) (Worktree, error) {
	if err := checkRef("branch", branch); err != nil {
		return Worktree{}, err
	}
	defer r.lock()() // one worktree change at a time (repolock.go)
	abs, err := filepath.Abs(path)
	if err != nil {
		return Worktree{}, fmt.Errorf("preparing worktree %s: %w", path, err)
	}
	wt := Worktree{Path: abs, Branch: branch, Dir: filepath.Join(abs, r.Rel), repo: r, git: r.git}
	what := fmt.Sprintf("preparing worktree %s on %s", abs, branch)
	if err := realDir(abs); err != nil && !errors.Is(err, ErrGone) {
		return Worktree{}, err
	}

	entry, registered, err := r.worktreeAt(ctx, abs)
	if err != nil {
		return Worktree{}, fmt.Errorf("%s: %w", what, err)
	}
	_, statErr := os.Lstat(abs)
	pathExisted := statErr == nil
	if registered && pathExisted {
		if entry.Branch != branch {
			on := "a detached HEAD"
			if entry.Branch != "" {
				on = "branch " + entry.Branch
			}
			return Worktree{}, fmt.Errorf("%s: the worktree there is on %s", what, on)
		}
		if err := wt.bind(); err != nil {
			return Worktree{}, err
		}
		wt.Reused = true
		return wt, wt.ensureDir()
	}
	if registered { // its directory was deleted: forget it first
		if _, err := r.run(ctx, "worktree", "prune"); err != nil {
			return Worktree{}, fmt.Errorf("%s: %w", what, err)
		}
	}
	exists, err := r.BranchExists(ctx, branch)
	if err != nil {
		return Worktree{}, fmt.Errorf("%s: %w", what, err)
	}
	// The checkout writes files whose attributes (the branch's, and so
	// perhaps an agent's) could name a smudge filter: every driver off.
	off, err := r.git.driversOff(ctx, r.site())
	if err != nil {
		return Worktree{}, fmt.Errorf("%s: %w", what, err)
	}
	add := r.site()
	add.off = off
	if exists {
		if _, err := r.git.run(ctx, add, "", "worktree", "add", abs, branch); err != nil {
			return Worktree{}, r.undo(ctx, fmt.Errorf("%s: %w", what, err), abs, pathExisted, "")
		}
		if err := wt.bind(); err != nil {
			return Worktree{}, r.undo(ctx, fmt.Errorf("%s: %w", what, err), abs, pathExisted, "")
		}
		r.git.log.Info("worktree checked out again", "path", abs, "branch", branch)
		return wt, wt.ensureDir()
	}
	if len(from) == 0 {
		return Worktree{}, fmt.Errorf("%s: no start point", what)
	}
	shas, err := r.resolve(ctx, from)
	if err != nil {
		return Worktree{}, fmt.Errorf("%s: %w", what, err)
	}
	if _, err := r.git.run(ctx, add, "", "worktree", "add", "-b", branch, abs, shas[0]); err != nil {
		return Worktree{}, r.undo(ctx, fmt.Errorf("%s from %s: %w", what, from[0], err), abs, pathExisted, branch)
	}
	if err := wt.bind(); err != nil {
		return Worktree{}, r.undo(ctx, fmt.Errorf("%s: %w", what, err), abs, pathExisted, branch)
	}
	for i := 1; i < len(from); i++ {
		if err := wt.merge(ctx, from[0], from[i], shas[i]); err != nil {
			return Worktree{}, r.undo(ctx, err, abs, pathExisted, branch)
		}
	}
	r.git.log.Info("worktree created", "path", abs, "branch", branch, "from", from)
	return wt, wt.ensureDir()
}

// resolve returns the commit each start point names.
func (r Repo) resolve(ctx context.Context, refs []string) ([]string, error) {
	shas := make([]string, len(refs))
	for i, ref := range refs {
		if err := checkRef("start point", ref); err != nil {
			return nil, err
		}
		out, err := r.run(ctx, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
		if err != nil {
			if exitCode(err) == 1 {
				return nil, fmt.Errorf("start point %s: no such branch or commit", ref)
			}
			return nil, fmt.Errorf("start point %s: %w", ref, err)
		}
		shas[i] = strings.TrimSpace(out)
	}
	return shas, nil
}

// merge merges the commit sha (start point name) into the new worktree's
// branch; on a conflict it aborts the merge and returns a *ConflictError.
// The trees merged are the dependencies' branches, the agents' work: their
// attributes may name any driver, so every driver is off.
func (w Worktree) merge(ctx context.Context, base, name, sha string) error {
	off, err := w.git.driversOff(ctx, w.site(nil))
	if err != nil {
		return fmt.Errorf("branch %s (from %s): merging %s: %w", w.Branch, base, name, err)
	}
	msg := fmt.Sprintf("warden: merge %s into %s", name, w.Branch)
	_, err = w.run(ctx, off, "", "merge", "--no-edit", "--no-verify", "--ff", "--no-stat", "-m", msg, sha)
	if err == nil {
		return nil
	}
	what := fmt.Sprintf("branch %s (from %s): merging %s", w.Branch, base, name)
	out, lsErr := w.run(ctx, off, "", "ls-files", "--unmerged", "-z")
	if lsErr != nil || out == "" {
		return fmt.Errorf("%s: %w", what, errors.Join(err, lsErr))
	}
	var paths []string
	for _, rec := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
		_, p, _ := strings.Cut(rec, "\t")
		if len(paths) == 0 || paths[len(paths)-1] != p {
			paths = append(paths, p)
		}
	}
	conflict := &ConflictError{Branch: w.Branch, Base: base, Merging: name, Paths: paths}
	if _, err := w.run(context.WithoutCancel(ctx), off, "", "merge", "--abort"); err != nil {
		return fmt.Errorf("%w; aborting the merge: %w", conflict, err)
	}
	return conflict
}

// undo removes what a failed Prepare made: the worktree at path (the
// directory only when it did not exist before), and branch unless it is "".
// It runs even when ctx has ended, and returns cause joined with whatever
// it could not undo.
func (r Repo) undo(ctx context.Context, cause error, path string, pathExisted bool, branch string) error {
	ctx = context.WithoutCancel(ctx)
	var errs []error
	if _, registered, err := r.worktreeAt(ctx, path); err != nil {
		errs = append(errs, err)
	} else if registered { // twice forced: a worktree add killed half-way leaves it locked
		if _, err := r.run(ctx, "worktree", "remove", "--force", "--force", path); err != nil {
			errs = append(errs, err)
		}
	}
	if !pathExisted {
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := r.run(ctx, "worktree", "prune"); err != nil {
		errs = append(errs, err)
	}
	if branch != "" {
		if ok, err := r.BranchExists(ctx, branch); err != nil {
			errs = append(errs, err)
		} else if ok {
			if _, err := r.run(ctx, "branch", "-D", branch); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) == 0 {
		return cause
	}
	return fmt.Errorf("%w; undoing it: %w", cause, errors.Join(errs...))
}

// ensureDir makes the agent's sub-directory when the branch does not have
// it (git keeps no empty directory).
func (w Worktree) ensureDir() error {
	if err := os.MkdirAll(w.Dir, 0o755); err != nil {
		return fmt.Errorf("making the agent's directory %s in worktree %s: %w", w.Dir, w.Path, err)
	}
	return nil
}
