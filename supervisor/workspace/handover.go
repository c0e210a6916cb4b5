package workspace

import (
	"context"
	"fmt"
	"strings"
)

// A land handed to an agent (issue 37): the land task's worktree is made
// from the integration branch where the land stopped, and the merge that
// stopped it is made there again. A merge that conflicts is committed as
// it is, git's conflict markers in the files (MergeKeepingConflicts): the
// agent resolves the files and warden commits them as any task's work;
// the resolution's branch then holds the task's branch as an ancestor,
// and ConflictMarkers says whether markers are left. Every call is
// warden's git, drivers and hooks off.

// conflictMarker is a line git's merge writes into a conflicted file.
const conflictMarker = `^(<<<<<<<|>>>>>>>)( |$)`

// MergeKeepingConflicts merges branch into the worktree's branch; when it
// conflicts, the files are committed as git left them (with its conflict
// markers) as the merge commit (both heads its parents), and paths are the
// conflicting ones. A merge without conflict is an ordinary merge (paths
// none). The worktree is clean afterwards either way.
func (w Worktree) MergeKeepingConflicts(ctx context.Context, branch string) (paths []string, err error) {
	err = w.MergeBranch(ctx, branch)
	if err == nil {
		return nil, nil
	}
	if _, ok := err.(*ConflictError); !ok {
		return nil, err
	}
	what := fmt.Sprintf("merging %s into %s, its conflicts kept", branch, w.Branch)
	shas, err := w.repo.resolve(ctx, []string{"refs/heads/" + branch})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	off, err := w.git.driversOff(ctx, w.site(nil))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	head, err := w.Head(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	msg := fmt.Sprintf("warden: merge %s into %s (conflicts left for the land task)", branch, w.Branch)
	// The merge again (MergeBranch aborted it), left in conflict this time.
	if _, err := w.run(ctx, off, "", "merge", "--no-edit", "--no-verify", "--no-ff", "--no-stat", "-m", msg, shas[0]); err == nil {
		return nil, nil // it merged after all: nothing to resolve
	}
	out, err := w.run(ctx, off, "", "ls-files", "--unmerged", "-z")
	if err != nil || out == "" {
		w.run(context.WithoutCancel(ctx), off, "", "merge", "--abort")
		return nil, fmt.Errorf("%s: no conflicting path: %v", what, err)
	}
	for _, rec := range strings.Split(strings.TrimSuffix(out, "\x00"), "\x00") {
		_, p, _ := strings.Cut(rec, "\t")
		if len(paths) == 0 || paths[len(paths)-1] != p {
			paths = append(paths, p)
		}
	}
	commit, err := w.commitMerge(ctx, off, head, shas[0], msg)
	if err != nil {
		w.run(context.WithoutCancel(ctx), off, "", "merge", "--abort")
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	// reset forgets the merge in progress; the files are the commit's.
	if _, err := w.run(context.WithoutCancel(ctx), off, "", "reset", "--quiet", commit); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return paths, nil
}

// commitMerge commits everything in the worktree as a merge of head and
// other, with plumbing (no hook, no signing), and moves the branch to it.
func (w Worktree) commitMerge(ctx context.Context, off []string, head, other, msg string) (string, error) {
	if _, err := w.retryLocked(ctx, off, "", "add", "-A"); err != nil {
		return "", err
	}
	tree, err := w.retryLocked(ctx, off, "", "write-tree")
	if err != nil {
		return "", err
	}
	out, err := w.run(ctx, off, msg, "commit-tree", "--no-gpg-sign", strings.TrimSpace(tree), "-p", head, "-p", other, "-F", "-")
	if err != nil {
		return "", err
	}
	commit := strings.TrimSpace(out)
	if _, err := w.run(ctx, off, "", "update-ref", "-m", "warden: land task", "refs/heads/"+w.Branch, commit, head); err != nil {
		return "", err
	}
	return commit, nil
}

// ConflictMarkers lists those of paths that hold a line of git's conflict
// markers at commit (none: every conflict resolved).
func (r Repo) ConflictMarkers(ctx context.Context, commit string, paths []string) ([]string, error) {
	if err := checkRef("commit", commit); err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, nil
	}
	args := []string{"grep", "-l", "-I", "-E", "-e", conflictMarker, commit, "--"}
	for _, p := range paths {
		args = append(args, ":(literal,top)"+p)
	}
	out, err := r.run(ctx, args...)
	switch {
	case err == nil:
	case exitCode(err) == 1:
		return nil, nil
	default:
		return nil, fmt.Errorf("conflict markers at %s: %w", short(commit), err)
	}
	var left []string
	for _, l := range lines(out) {
		left = append(left, strings.TrimPrefix(l, commit+":"))
	}
	return left, nil
}

// AbortMerge aborts a merge in progress in the worktree (warden died in
// the middle of one); none in progress: nothing is done.
func (w Worktree) AbortMerge(ctx context.Context) error {
	if err := w.Verify(); err != nil {
		return fmt.Errorf("aborting a merge in %s: %w", w.Path, err)
	}
	if _, err := w.run(ctx, nil, "", "rev-parse", "--quiet", "--verify", "MERGE_HEAD"); err != nil {
		if exitCode(err) == 1 {
			return nil
		}
		return fmt.Errorf("aborting a merge in %s: %w", w.Path, err)
	}
	off, err := w.git.driversOff(ctx, w.site(nil))
	if err != nil {
		return fmt.Errorf("aborting a merge in %s: %w", w.Path, err)
	}
	if _, err := w.run(context.WithoutCancel(ctx), off, "", "merge", "--abort"); err != nil {
		return fmt.Errorf("aborting a merge in %s: %w", w.Path, err)
	}
	w.git.log.Info("a merge left in progress was aborted", "path", w.Path)
	return nil
}

// OnlyWardens reports whether every commit on the first-parent line from
// `from` (excluded) to `to` was committed by warden.
func (r Repo) OnlyWardens(ctx context.Context, from, to string) (bool, error) {
	if err := checkRef("commit", from); err != nil {
		return false, err
	}
	if err := checkRef("commit", to); err != nil {
		return false, err
	}
	out, err := r.run(ctx, "log", "--first-parent", "--format=%ce", from+".."+to, "--")
	if err != nil {
		return false, fmt.Errorf("who committed %s..%s: %w", short(from), short(to), err)
	}
	for _, l := range lines(out) {
		if l != AuthorEmail {
			return false, nil
		}
	}
	return true, nil
}
