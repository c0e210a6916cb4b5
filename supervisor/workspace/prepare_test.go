//go:build !e2e

package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Two tasks get a worktree and a branch each from base; both edit the same
// file in parallel; the user's checkout and base do not move.
func TestPrepareGivesEachTaskItsOwnWorktreeFromBase(t *testing.T) {
	root := newRepo(t)
	g := driver(t)
	r := find(t, g, root)
	baseHead := gitT(t, root, "rev-parse", "main")
	w1 := prepare(t, r, wtPath(t, "T1"), "warden/team/T1", "main")
	w2 := prepare(t, r, wtPath(t, "T2"), "warden/team/T2", "main")
	if w1.Reused || w1.Dir != w1.Path || w1.Branch != "warden/team/T1" {
		t.Errorf("worktree = %+v", w1)
	}
	write(t, filepath.Join(w1.Dir, "a.txt"), "one by T1\n")
	write(t, filepath.Join(w2.Dir, "a.txt"), "one by T2\n")
	c1, made1 := commit(t, w1, "T1: in_progress (50%)")
	c2, made2 := commit(t, w2, "T2: in_progress (50%)")
	if !made1 || !made2 || c1 == c2 {
		t.Fatalf("commits %s %v, %s %v", c1, made1, c2, made2)
	}
	for branch, want := range map[string]string{"warden/team/T1": "one by T1\n", "warden/team/T2": "one by T2\n"} {
		if got := gitT(t, root, "show", branch+":a.txt") + "\n"; got != want {
			t.Errorf("%s:a.txt = %q, want %q", branch, got, want)
		}
		if got := gitT(t, root, "rev-parse", branch+"^"); got != baseHead {
			t.Errorf("%s starts at %s, want base %s", branch, got, baseHead)
		}
	}
	if got := gitT(t, root, "rev-parse", "main"); got != baseHead {
		t.Errorf("main moved to %s", got)
	}
	if got := read(t, filepath.Join(root, "a.txt")); got != "one\ntwo\nthree\n" {
		t.Errorf("the user's a.txt = %q", got)
	}
	if got := gitT(t, root, "status", "--porcelain"); got != "" {
		t.Errorf("the user's checkout is not clean: %q", got)
	}
}

func TestDependentTaskSeesItsDependencysCommits(t *testing.T) {
	root := newRepo(t)
	r := find(t, driver(t), root)
	w1 := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
	write(t, filepath.Join(w1.Dir, "api.go"), "package api\n")
	c1, _ := commit(t, w1, "T1: done")
	w2 := prepare(t, r, wtPath(t, "T2"), "warden/t/T2", "warden/t/T1")
	if got := read(t, filepath.Join(w2.Dir, "api.go")); got != "package api\n" {
		t.Errorf("T2 sees api.go = %q", got)
	}
	if head, err := w2.Head(context.Background()); err != nil || head != c1 {
		t.Errorf("T2 head = %s %v, want T1's %s", head, err, c1)
	}
}

// dependencies makes T1 and T2 from main, each committing files.
func dependencies(t *testing.T, r Repo, files1, files2 map[string]string) {
	t.Helper()
	for task, files := range map[string]map[string]string{"T1": files1, "T2": files2} {
		w := prepare(t, r, wtPath(t, task), "warden/t/"+task, "main")
		for name, content := range files {
			write(t, filepath.Join(w.Dir, name), content)
		}
		commit(t, w, task+": done")
	}
}

func TestTwoDependenciesAreMerged(t *testing.T) {
	root := newRepo(t)
	r := find(t, driver(t), root)
	dependencies(t, r, map[string]string{"x.txt": "x\n", "a.txt": "one\ntwo\nthree by T1\n"},
		map[string]string{"y.txt": "y\n", "a.txt": "one by T2\ntwo\nthree\n"})
	w := prepare(t, r, wtPath(t, "T3"), "warden/t/T3", "warden/t/T1", "warden/t/T2")
	for name, want := range map[string]string{"x.txt": "x\n", "y.txt": "y\n", "a.txt": "one by T2\ntwo\nthree by T1\n"} {
		if got := read(t, filepath.Join(w.Dir, name)); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if got := gitT(t, w.Path, "log", "-1", "--format=%an <%ae>|%P|%s"); !strings.HasPrefix(got, "warden <warden@localhost>|") ||
		len(strings.Fields(strings.Split(got, "|")[1])) != 2 || !strings.Contains(got, "merge warden/t/T2") {
		t.Errorf("merge commit = %q", got)
	}
	if got := gitT(t, w.Path, "status", "--porcelain"); got != "" {
		t.Errorf("the merged worktree is not clean: %q", got)
	}
}

// A conflict between two dependencies is a *ConflictError naming every
// conflicting path, and leaves no worktree, no directory and no branch.
func TestConflictBetweenDependenciesLeavesNothing(t *testing.T) {
	root := newRepo(t)
	r := find(t, driver(t), root)
	dependencies(t, r, map[string]string{"a.txt": "T1\n", "d/b.txt": "T1\n", "x.txt": "x\n"},
		map[string]string{"a.txt": "T2\n", "d/b.txt": "T2\n"})
	path := wtPath(t, "T3")
	_, err := r.Prepare(context.Background(), path, "warden/t/T3", []string{"warden/t/T1", "warden/t/T2"})
	var ce *ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("Prepare = %v, want a *ConflictError", err)
	}
	want := ConflictError{Branch: "warden/t/T3", Base: "warden/t/T1", Merging: "warden/t/T2", Paths: []string{"a.txt", "d/b.txt"}}
	if !reflect.DeepEqual(*ce, want) {
		t.Errorf("conflict = %+v, want %+v", *ce, want)
	}
	if !strings.Contains(err.Error(), "a.txt, d/b.txt") {
		t.Errorf("error %q does not name the paths", err)
	}
	assertNothingMade(t, r, root, path, "warden/t/T3")
}

// A start point git does not know fails before anything is made; a
// directory already at the path (not a worktree) is left alone.
func TestPrepareFailuresLeaveNothing(t *testing.T) {
	root := newRepo(t)
	r := find(t, driver(t), root)
	path := wtPath(t, "T1")
	_, err := r.Prepare(context.Background(), path, "warden/t/T1", []string{"nosuch"})
	if err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("Prepare from nosuch = %v", err)
	}
	assertNothingMade(t, r, root, path, "warden/t/T1")

	write(t, filepath.Join(path, "mine.txt"), "the user's\n")
	_, err = r.Prepare(context.Background(), path, "warden/t/T1", []string{"main"})
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("Prepare over a directory = %v", err)
	}
	if got := read(t, filepath.Join(path, "mine.txt")); got != "the user's\n" {
		t.Errorf("mine.txt = %q", got)
	}
	if ok, _ := r.BranchExists(context.Background(), "warden/t/T1"); ok {
		t.Error("branch left behind")
	}
	if _, err := r.Prepare(context.Background(), path, "-x", []string{"main"}); err == nil {
		t.Error("a branch name starting with - was accepted")
	}
}

// The agent's dir may be a sub-directory of its repository: the worktree
// keeps it as the working directory, even one the branch lacks.
func TestSubdirectoryIsKept(t *testing.T) {
	root := newRepo(t)
	write(t, filepath.Join(root, "svc", "api", "main.go"), "package main\n")
	commitAll(t, root, "svc")
	os.MkdirAll(filepath.Join(root, "svc", "empty"), 0o755)
	g := driver(t)
	r := find(t, g, filepath.Join(root, "svc", "api"))
	if r.Root != root || r.Rel != filepath.Join("svc", "api") {
		t.Fatalf("Find = %+v, want root %s rel svc/api", r, root)
	}
	w := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
	if w.Dir != filepath.Join(w.Path, "svc", "api") || read(t, filepath.Join(w.Dir, "main.go")) != "package main\n" {
		t.Errorf("Dir = %s", w.Dir)
	}
	r2 := find(t, g, filepath.Join(root, "svc", "empty"))
	w2 := prepare(t, r2, wtPath(t, "T2"), "warden/t/T2", "main")
	if fi, err := os.Stat(w2.Dir); err != nil || !fi.IsDir() {
		t.Errorf("the agent's directory %s was not made: %v", w2.Dir, err)
	}
	if top := find(t, g, root); top.Rel != "." {
		t.Errorf("Rel at the top = %q", top.Rel)
	}
}

// Rehydration (and --resume, from a new process) finds the worktree on its
// branch and reuses it as it is, uncommitted work included.
func TestPrepareReusesTheWorktreeAfterRehydration(t *testing.T) {
	root := newRepo(t)
	r := find(t, driver(t), root)
	path := wtPath(t, "T1")
	w := prepare(t, r, path, "warden/t/T1", "main")
	write(t, filepath.Join(w.Dir, "a.txt"), "half done\n")
	c, _ := commit(t, w, "T1: in_progress (40%)")
	write(t, filepath.Join(w.Dir, "wip.txt"), "not committed yet\n")

	r2 := find(t, driver(t), root) // a new driver, as after a restart
	w2 := prepare(t, r2, path, "warden/t/T1", "main")
	if !w2.Reused || w2.Path != w.Path || w2.Dir != w.Dir {
		t.Errorf("second Prepare = %+v, want the same worktree reused", w2)
	}
	if got := read(t, filepath.Join(w2.Dir, "wip.txt")); got != "not committed yet\n" {
		t.Errorf("wip.txt = %q", got)
	}
	if head, _ := w2.Head(context.Background()); head != c {
		t.Errorf("head %s, want %s", head, c)
	}
	if _, err := r2.Prepare(context.Background(), path, "warden/t/OTHER", []string{"main"}); err == nil ||
		!strings.Contains(err.Error(), "on branch warden/t/T1") {
		t.Errorf("Prepare on another branch = %v", err)
	}
}

// A branch whose worktree directory was deleted is checked out again, with
// its commits, not made anew from the start point.
func TestDeletedWorktreeIsCheckedOutAgain(t *testing.T) {
	root := newRepo(t)
	r := find(t, driver(t), root)
	path := wtPath(t, "T1")
	w := prepare(t, r, path, "warden/t/T1", "main")
	write(t, filepath.Join(w.Dir, "done.txt"), "kept\n")
	c, _ := commit(t, w, "T1: done")
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	w2 := prepare(t, r, path, "warden/t/T1", "main")
	if w2.Reused {
		t.Error("a deleted worktree counted as reused")
	}
	if head, _ := w2.Head(context.Background()); head != c {
		t.Errorf("head %s, want the branch's %s", head, c)
	}
	if got := read(t, filepath.Join(w2.Dir, "done.txt")); got != "kept\n" {
		t.Errorf("done.txt = %q", got)
	}
	if n := strings.Count(gitT(t, root, "worktree", "list", "--porcelain"), "branch refs/heads/warden/t/T1"); n != 1 {
		t.Errorf("branch registered %d times", n)
	}
}
