package workspace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/wardenhq/warden/protocol"
)

// Worktree is a task's git worktree, on the task's branch.
type Worktree struct {
	Path   string // the worktree's top directory
	Branch string
	// Dir is where the agent works: Path, or the sub-directory of it that
	// the agent's dir is of its repository.
	Dir string
	// Reused is true when Prepare found the worktree already there
	// (rehydration, --resume), false when it checked it out.
	Reused bool
	// admin is the worktree's admin dir in the user's repository
	// (common/worktrees/NAME), found from the repository's side, and real
	// Path with symlinks resolved when Prepare made or took it up.
	admin, real string
	repo        Repo
	git         *Git
}

// ErrGone: the worktree's directory no longer exists (the agent deleted
// it). Prepare makes it again from the task's branch.
var ErrGone = errors.New("the worktree's directory is gone")

// RefusedError: the worktree is no longer the one warden made — a symbolic
// link stands where it was, its .git is not the file that names its admin
// dir, or the admin dir does not name it back. warden neither commits from
// it nor starts a session in it.
type RefusedError struct {
	Path   string
	Reason string
}

// Error is on one line without control characters: the reason may name
// what the agent planted (a link's target, a path in its .git).
func (e *RefusedError) Error() string {
	return protocol.Plain(fmt.Sprintf("worktree %s is not the one warden made (%s): refused", e.Path, e.Reason))
}

// site is where the worktree's calls run: its admin dir and its top,
// named; never what its .git says.
func (w Worktree) site(off []string) site {
	return site{dir: w.Path, gitDir: w.admin, workTree: w.Path, off: off}
}

// maxGitFile bounds what is read of a .git, gitdir or commondir file.
const maxGitFile = 4096

// readSmall reads the regular file at path, never through a symbolic link
// and never blocking on a FIFO, up to maxGitFile bytes, trimmed.
func readSmall(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return "", fmt.Errorf("%s is a symbolic link", path)
		}
		return "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return "", err
	} else if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file (%v)", path, fi.Mode().Type())
	}
	b, err := io.ReadAll(io.LimitReader(f, maxGitFile))
	return strings.TrimSpace(string(b)), err
}

// resolve is p, relative to dir when it is not absolute, canonical.
func resolve(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return canonical(p)
}

// resolveFile is resolve for a path whose last element is not followed:
// a .git named by a gitdir file is compared as it stands, never as what a
// link there points to.
func resolveFile(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Join(canonical(filepath.Dir(p)), filepath.Base(p))
}

// adminDir finds the admin dir of the worktree at path from the
// repository's side: the one directory of common/worktrees whose gitdir
// file names path/.git. The worktree's own .git file is never asked.
func (r Repo) adminDir(path string) (string, error) {
	want := filepath.Join(canonical(path), ".git")
	dirs, err := os.ReadDir(filepath.Join(r.common, "worktrees"))
	if err != nil {
		return "", fmt.Errorf("the admin dir of worktree %s: %w", path, err)
	}
	var found []string
	for _, d := range dirs {
		admin := filepath.Join(r.common, "worktrees", d.Name())
		if !d.IsDir() {
			continue
		}
		if back, err := readSmall(filepath.Join(admin, "gitdir")); err == nil && resolveFile(admin, back) == want {
			found = append(found, admin)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("the admin dir of worktree %s: none in %s names it", path, filepath.Join(r.common, "worktrees"))
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("the admin dir of worktree %s: %d in %s name it (%s)", path, len(found),
		filepath.Join(r.common, "worktrees"), strings.Join(found, ", "))
}

// bind ties w to what warden made: its admin dir, found from the
// repository's side, and its real path; then checks it (Verify).
func (w *Worktree) bind() error {
	if err := realDir(w.Path); err != nil {
		return err
	}
	admin, err := w.repo.adminDir(w.Path)
	if err != nil {
		return &RefusedError{Path: w.Path, Reason: err.Error()}
	}
	w.admin, w.real = admin, canonical(w.Path)
	return w.Verify()
}

// realDir checks that path is a directory, not a symbolic link, and that
// the directory holding it (state_dir/worktrees) is not one either.
func realDir(path string) error {
	for _, p := range []string{filepath.Dir(path), path} {
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("%s: %w", path, ErrGone)
		case err != nil:
			return fmt.Errorf("worktree %s: %w", path, err)
		case fi.Mode()&os.ModeSymlink != 0:
			to, _ := os.Readlink(p)
			return &RefusedError{Path: path, Reason: fmt.Sprintf("%s is a symbolic link to %s", p, to)}
		case !fi.IsDir():
			return &RefusedError{Path: path, Reason: fmt.Sprintf("%s is not a directory (%v)", p, fi.Mode().Type())}
		}
	}
	return nil
}

// Verify checks, reading files and running nothing, that the worktree is
// still the one warden made: its path a real directory (not a symbolic
// link, where it was made), its .git a regular file whose gitdir: names
// the admin dir warden found, that admin dir's gitdir naming the worktree
// back and its commondir the user's repository. A deleted worktree is
// ErrGone; anything else is a *RefusedError.
func (w Worktree) Verify() error {
	if w.admin == "" {
		return &RefusedError{Path: w.Path, Reason: "warden never made or took it up"}
	}
	if err := realDir(w.Path); err != nil {
		return err
	}
	refuse := func(format string, a ...any) error {
		return &RefusedError{Path: w.Path, Reason: fmt.Sprintf(format, a...)}
	}
	if got := canonical(w.Path); got != w.real {
		return refuse("it now resolves to %s", got)
	}
	dotGit := filepath.Join(w.Path, ".git")
	fi, err := os.Lstat(dotGit)
	switch {
	case err != nil:
		return refuse(".git: %v", err)
	case fi.Mode()&os.ModeSymlink != 0:
		return refuse(".git is a symbolic link")
	case fi.IsDir():
		return refuse(".git is a directory: a repository of its own")
	case !fi.Mode().IsRegular():
		return refuse(".git is not a regular file (%v)", fi.Mode().Type())
	}
	text, err := readSmall(dotGit)
	if err != nil {
		return refuse(".git: %v", err)
	}
	named, ok := strings.CutPrefix(text, "gitdir: ")
	if !ok || strings.ContainsAny(named, "\n") {
		return refuse(".git does not say gitdir: <its admin dir>")
	}
	if got := resolve(w.Path, named); got != canonical(w.admin) {
		return refuse(".git names %s, not its admin dir %s", got, w.admin)
	}
	back, err := readSmall(filepath.Join(w.admin, "gitdir"))
	if err != nil {
		return refuse("its admin dir: %v", err)
	}
	if got := resolveFile(w.admin, back); got != filepath.Join(w.real, ".git") {
		return refuse("its admin dir %s names %s", w.admin, got)
	}
	common, err := readSmall(filepath.Join(w.admin, "commondir"))
	if err != nil {
		return refuse("its admin dir: %v", err)
	}
	if got := resolve(w.admin, common); got != w.repo.common {
		return refuse("its admin dir %s belongs to %s, not to %s", w.admin, got, w.repo.common)
	}
	return nil
}

// Info is the worktree's branch and the commit it is at, read from the
// user's repository (the admin dir's HEAD, the branch's ref in the common
// dir) without a subprocess — never through the worktree's own .git, which
// the agent may have pointed elsewhere. Nil when the worktree is not the
// one warden made.
func (w Worktree) Info() *protocol.Git {
	if w.Verify() != nil {
		return nil
	}
	head, err := readSmall(filepath.Join(w.admin, "HEAD"))
	if err != nil {
		return nil
	}
	ref, isRef := strings.CutPrefix(head, "ref: ")
	if !isRef {
		return &protocol.Git{Branch: "HEAD", Head: head} // detached
	}
	return &protocol.Git{Branch: strings.TrimPrefix(ref, "refs/heads/"), Head: resolveRef(w.repo.common, ref)} // branches live in the common dir
}
