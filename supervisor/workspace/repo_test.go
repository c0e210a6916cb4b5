//go:build !e2e

package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindOutsideARepositoryIsAClearError(t *testing.T) {
	g := driver(t)
	outside := t.TempDir()
	_, err := g.Find(context.Background(), outside)
	if !errors.Is(err, ErrNotRepo) || !strings.Contains(err.Error(), outside) {
		t.Errorf("Find(%s) = %v, want ErrNotRepo naming the dir", outside, err)
	}
	root := newRepo(t)
	if _, err := g.Find(context.Background(), filepath.Join(root, ".git")); !errors.Is(err, ErrNotRepo) {
		t.Errorf("Find(.git) = %v, want ErrNotRepo", err)
	}
	missing := filepath.Join(outside, "missing")
	if _, err := g.Find(context.Background(), missing); err == nil || errors.Is(err, ErrNotRepo) || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("Find(missing) = %v, want no such file", err)
	}
}

func TestCurrentBranch(t *testing.T) {
	root := newRepo(t)
	r := find(t, driver(t), root)
	gitT(t, root, "checkout", "--quiet", "-b", "feature/x")
	if b, err := r.CurrentBranch(context.Background()); err != nil || b != "feature/x" {
		t.Errorf("CurrentBranch = %q %v", b, err)
	}
	gitT(t, root, "checkout", "--quiet", "--detach")
	if b, err := r.CurrentBranch(context.Background()); err == nil || !strings.Contains(err.Error(), "detached") {
		t.Errorf("CurrentBranch on a detached HEAD = %q %v", b, err)
	}
}

func TestBranchExistsAndAhead(t *testing.T) {
	root := newRepo(t)
	r := find(t, driver(t), root)
	ctx := context.Background()
	w := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
	for i, s := range []string{"1", "2", "3"} {
		if n, err := r.Ahead(ctx, "warden/t/T1", "main"); err != nil || n != i {
			t.Errorf("Ahead after %d commits = %d %v", i, n, err)
		}
		write(t, filepath.Join(w.Dir, "f"), s)
		commit(t, w, s)
	}
	write(t, filepath.Join(root, "b.txt"), "on main\n")
	commitAll(t, root, "main moves on")
	if n, err := r.Ahead(ctx, "warden/t/T1", "main"); err != nil || n != 3 {
		t.Errorf("Ahead = %d %v, want 3 (base's own commits do not count)", n, err)
	}
	if n, err := r.Ahead(ctx, "main", "warden/t/T1"); err != nil || n != 1 {
		t.Errorf("main ahead of T1 = %d %v, want 1", n, err)
	}
	if _, err := r.Ahead(ctx, "nosuch", "main"); err == nil {
		t.Error("Ahead of a missing branch: no error")
	}
	for branch, want := range map[string]bool{"warden/t/T1": true, "main": true, "warden/t": false, "nosuch": false} {
		if ok, err := r.BranchExists(ctx, branch); ok != want || err != nil {
			t.Errorf("BranchExists(%s) = %v %v", branch, ok, err)
		}
		if ok := BranchExists(root, branch); ok != want {
			t.Errorf("BranchExists(dir, %s) = %v", branch, ok)
		}
	}
}

// fastForwardRepo makes a repository whose main has a task branch one
// commit ahead, and the user's checkout on branch user.
func fastForwardRepo(t *testing.T) (root string, r Repo, task string) {
	root = newRepo(t)
	r = find(t, driver(t), root)
	w := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
	write(t, filepath.Join(w.Dir, "done.txt"), "done\n")
	task, _ = commit(t, w, "T1: done")
	gitT(t, root, "checkout", "--quiet", "-b", "user")
	return root, r, task
}

func TestFastForwardMovesBaseWithoutTouchingAnyCheckout(t *testing.T) {
	root, r, task := fastForwardRepo(t)
	if err := r.FastForward(context.Background(), "main", "warden/t/T1"); err != nil {
		t.Fatal(err)
	}
	if got := gitT(t, root, "rev-parse", "main"); got != task {
		t.Errorf("main at %s, want %s", got, task)
	}
	if exists(filepath.Join(root, "done.txt")) || gitT(t, root, "status", "--porcelain") != "" {
		t.Error("the user's checkout changed")
	}
	if err := r.FastForward(context.Background(), "main", "warden/t/T1"); err != nil {
		t.Errorf("FastForward when already there = %v", err)
	}
}

func TestFastForwardRefusedWhenBaseIsCheckedOut(t *testing.T) {
	root, r, _ := fastForwardRepo(t)
	gitT(t, root, "checkout", "--quiet", "main")
	before := gitT(t, root, "rev-parse", "main")
	err := r.FastForward(context.Background(), "main", "warden/t/T1")
	if !errors.Is(err, ErrCheckedOut) || !strings.Contains(err.Error(), root) {
		t.Errorf("FastForward = %v, want ErrCheckedOut naming %s", err, root)
	}
	if got := gitT(t, root, "rev-parse", "main"); got != before || exists(filepath.Join(root, "done.txt")) {
		t.Error("main moved under the user's checkout")
	}
	// Checked out in some other worktree: refused too.
	gitT(t, root, "checkout", "--quiet", "user")
	other := filepath.Join(t.TempDir(), "other")
	gitT(t, root, "worktree", "add", "--quiet", other, "main")
	if err := r.FastForward(context.Background(), "main", "warden/t/T1"); !errors.Is(err, ErrCheckedOut) || !strings.Contains(err.Error(), other) {
		t.Errorf("FastForward = %v, want ErrCheckedOut naming %s", err, other)
	}
}

func TestFastForwardRefusedWhenNotAFastForward(t *testing.T) {
	root, r, task := fastForwardRepo(t)
	gitT(t, root, "checkout", "--quiet", "main")
	write(t, filepath.Join(root, "b.txt"), "main moves on\n")
	moved := commitAll(t, root, "main moves on")
	gitT(t, root, "checkout", "--quiet", "user")
	err := r.FastForward(context.Background(), "main", "warden/t/T1")
	if !errors.Is(err, ErrNotFastForward) || errors.Is(err, ErrCheckedOut) {
		t.Errorf("FastForward = %v, want ErrNotFastForward", err)
	}
	if got := gitT(t, root, "rev-parse", "main"); got != moved || got == task {
		t.Errorf("main at %s, want it left at %s", got, moved)
	}
}

func TestRemoveKeepsTheBranch(t *testing.T) {
	root := newRepo(t)
	r := find(t, driver(t), root)
	ctx := context.Background()
	path := wtPath(t, "T1")
	w := prepare(t, r, path, "warden/t/T1", "main")
	write(t, filepath.Join(w.Dir, "done.txt"), "done\n")
	c, _ := commit(t, w, "T1: done")
	write(t, filepath.Join(w.Dir, "scratch.txt"), "uncommitted\n")
	if err := r.Remove(ctx, path); err != nil {
		t.Fatal(err)
	}
	if exists(path) || strings.Contains(gitT(t, root, "worktree", "list", "--porcelain"), path) {
		t.Errorf("worktree %s still there", path)
	}
	if got := gitT(t, root, "rev-parse", "warden/t/T1"); got != c {
		t.Errorf("branch at %s, want %s", got, c)
	}
	if err := r.Remove(ctx, path); err != nil {
		t.Errorf("Remove again = %v", err)
	}
	w = prepare(t, r, path, "warden/t/T1", "main")
	os.RemoveAll(path) // deleted by hand: Remove forgets it
	if err := r.Remove(ctx, path); err != nil || strings.Contains(gitT(t, root, "worktree", "list", "--porcelain"), path) {
		t.Errorf("Remove of a deleted worktree = %v", err)
	}
	mine := filepath.Join(t.TempDir(), "mine")
	write(t, filepath.Join(mine, "f"), "the user's\n")
	if err := r.Remove(ctx, mine); err == nil || !exists(filepath.Join(mine, "f")) {
		t.Errorf("Remove of a plain directory = %v", err)
	}
}
