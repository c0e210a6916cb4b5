package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotRepo: a directory is not inside a git work tree.
var ErrNotRepo = errors.New("not in a git work tree")

// Repo is the git repository holding an agent's directory.
type Repo struct {
	// Root is the top of the work tree holding the directory (symlinks
	// resolved, as git reports it).
	Root string
	// Rel is the directory relative to Root ("." at the top): kept as the
	// agent's working directory inside each task's worktree.
	Rel string
	// gitDir is the repository of Root's checkout (its .git, or the admin
	// dir when the user's checkout is itself a linked worktree), and common
	// the directory every worktree of the repository shares (where
	// worktrees/ and the branches are), both absolute and symlink-free.
	gitDir, common string
	git            *Git
}

// Find returns the repository whose work tree holds dir (the agent's dir,
// as the team file names it: the user's checkout, never a task's worktree).
// The error wraps ErrNotRepo when dir is outside any git work tree (or
// inside a .git directory, or a bare repository).
func (g *Git) Find(ctx context.Context, dir string) (Repo, error) {
	if fi, err := os.Stat(dir); err != nil {
		return Repo{}, fmt.Errorf("finding the git repository of %s: %w", dir, err)
	} else if !fi.IsDir() {
		return Repo{}, fmt.Errorf("finding the git repository of %s: not a directory", dir)
	}
	out, err := g.run(ctx, site{dir: dir}, "", "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir", "--show-prefix")
	if err != nil {
		if exitCode(err) == 128 {
			return Repo{}, fmt.Errorf("%s: %w (%v)", dir, ErrNotRepo, err)
		}
		return Repo{}, fmt.Errorf("finding the git repository of %s: %w", dir, err)
	}
	f := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(f) < 3 || f[0] == "" {
		return Repo{}, fmt.Errorf("%s: %w (git rev-parse printed no top level)", dir, ErrNotRepo)
	}
	top, gitDir, common, prefix := f[0], f[1], f[2], ""
	if len(f) > 3 {
		prefix = f[3]
	}
	if !filepath.IsAbs(common) { // relative to where git ran
		abs, err := filepath.Abs(dir)
		if err != nil {
			return Repo{}, fmt.Errorf("finding the git repository of %s: %w", dir, err)
		}
		common = filepath.Join(abs, common)
	}
	rel := filepath.Clean(filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
	if rel == "" {
		rel = "."
	}
	return Repo{Root: top, Rel: rel, gitDir: canonical(gitDir), common: canonical(common), git: g}, nil
}

// site is where the repository's own calls run: its checkout, named.
func (r Repo) site() site {
	return site{dir: r.Root, gitDir: r.gitDir, workTree: r.Root}
}

func (r Repo) run(ctx context.Context, args ...string) (string, error) {
	return r.git.run(ctx, r.site(), "", args...)
}

// CurrentBranch is the branch checked out at Root: the default base. An
// error when HEAD is detached.
func (r Repo) CurrentBranch(ctx context.Context) (string, error) {
	out, err := r.run(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		if exitCode(err) == 1 {
			return "", fmt.Errorf("the current branch of %s: HEAD is detached (name a base branch)", r.Root)
		}
		return "", fmt.Errorf("the current branch of %s: %w", r.Root, err)
	}
	return strings.TrimSpace(out), nil
}

// BranchExists reports whether the repository has branch.
func (r Repo) BranchExists(ctx context.Context, branch string) (bool, error) {
	if err := checkRef("branch", branch); err != nil {
		return false, err
	}
	_, err := r.run(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	switch {
	case err == nil:
		return true, nil
	case exitCode(err) == 1:
		return false, nil
	}
	return false, fmt.Errorf("looking up branch %s: %w", branch, err)
}

// Ahead counts the commits on branch that are not on base.
func (r Repo) Ahead(ctx context.Context, branch, base string) (int, error) {
	if err := errors.Join(checkRef("branch", branch), checkRef("base", base)); err != nil {
		return 0, err
	}
	out, err := r.run(ctx, "rev-list", "--count", "refs/heads/"+base+"..refs/heads/"+branch)
	if err != nil {
		return 0, fmt.Errorf("counting the commits of %s ahead of %s: %w", branch, base, err)
	}
	var n int
	if _, err := fmt.Sscan(out, &n); err != nil {
		return 0, fmt.Errorf("counting the commits of %s ahead of %s: git printed %q", branch, base, out)
	}
	return n, nil
}

// worktreeEntry is one entry of `git worktree list --porcelain`.
type worktreeEntry struct {
	Path   string
	Branch string // without refs/heads/; "" when detached or bare
}

// worktrees lists the repository's worktrees, the main one first.
func (r Repo) worktrees(ctx context.Context) ([]worktreeEntry, error) {
	out, err := r.run(ctx, "worktree", "list", "--porcelain")
	if err != nil {
		return nil, fmt.Errorf("listing the worktrees of %s: %w", r.Root, err)
	}
	var list []worktreeEntry
	for _, line := range lines(out) {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			list = append(list, worktreeEntry{Path: p})
		} else if b, ok := strings.CutPrefix(line, "branch "); ok && len(list) > 0 {
			list[len(list)-1].Branch = strings.TrimPrefix(b, "refs/heads/")
		}
	}
	return list, nil
}

// worktreeAt returns the registered worktree at path, if any.
func (r Repo) worktreeAt(ctx context.Context, path string) (worktreeEntry, bool, error) {
	list, err := r.worktrees(ctx)
	if err != nil {
		return worktreeEntry{}, false, err
	}
	want := canonical(path)
	for _, w := range list {
		if canonical(w.Path) == want {
			return w, true, nil
		}
	}
	return worktreeEntry{}, false, nil
}

// canonical is path absolute and with symlinks resolved, as far as it
// exists (a deleted worktree's directory no longer does).
func canonical(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	var rest []string
	for p := abs; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{real}, rest...)...)
		}
		if filepath.Dir(p) == p {
			return abs
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}

// Remove removes the worktree at path, even with changes in it (commit
// them first; a worktree the user locked is refused), and prunes what git
// remembers of deleted worktrees. Its branch stays. A path that is no
// worktree and does not exist is already removed; one that exists is left
// alone and is an error, as is a worktree that is no longer the one warden
// made (a symbolic link is never followed: git would empty its target).
func (r Repo) Remove(ctx context.Context, path string) error {
	defer r.lock()() // one worktree change at a time (repolock.go)
	path, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("removing worktree %s: %w", path, err)
	}
	if err := realDir(path); err != nil && !errors.Is(err, ErrGone) {
		return fmt.Errorf("removing worktree %s: %w", path, err) // a link: never followed, left alone
	}
	_, registered, err := r.worktreeAt(ctx, path)
	if err != nil {
		return fmt.Errorf("removing worktree %s: %w", path, err)
	}
	_, statErr := os.Lstat(path)
	switch {
	case registered && statErr == nil:
		wt := Worktree{Path: path, repo: r, git: r.git}
		if err := wt.bind(); err != nil {
			return fmt.Errorf("removing worktree %s: %w; left alone", path, err)
		}
		if _, err := r.run(ctx, "worktree", "remove", "--force", path); err != nil {
			return fmt.Errorf("removing worktree %s: %w", path, err)
		}
	case !registered && statErr == nil:
		return fmt.Errorf("removing worktree %s: not a worktree of %s; left alone", path, r.Root)
	}
	if _, err := r.run(ctx, "worktree", "prune"); err != nil {
		return fmt.Errorf("pruning the worktrees of %s: %w", r.Root, err)
	}
	r.git.log.Info("worktree removed", "path", path)
	return nil
}

// RenameBranch renames branch from to to (which must not exist): a branch
// kept as history under another name. A worktree on from must be removed
// first.
func (r Repo) RenameBranch(ctx context.Context, from, to string) error {
	if err := checkRef("branch", from); err != nil {
		return err
	}
	if err := checkRef("branch", to); err != nil {
		return err
	}
	if _, err := r.run(ctx, "branch", "-m", from, to); err != nil {
		return fmt.Errorf("renaming branch %s to %s: %w", from, to, err)
	}
	r.git.log.Info("branch renamed", "from", from, "to", to)
	return nil
}
