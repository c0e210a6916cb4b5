//go:build e2e

package workspace

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
)

// Every method goes through the timeout: with a timeout of 1 ns, each
// fails with context.DeadlineExceeded; a cancelled caller's context ends a
// call too.
func TestEveryCallHasATimeout(t *testing.T) {
	root := newRepo(t)
	g := driver(t)
	r := find(t, g, root)
	path := wtPath(t, "T1")
	w := prepare(t, r, path, "warden/t/T1", "main")
	write(t, filepath.Join(w.Dir, "a.txt"), "dirty\n")
	gitT(t, root, "checkout", "--quiet", "-b", "user")
	ctx := context.Background()

	g.Timeout = time.Nanosecond
	calls := map[string]func() error{
		"Find":          func() error { _, err := g.Find(ctx, root); return err },
		"CurrentBranch": func() error { _, err := r.CurrentBranch(ctx); return err },
		"BranchExists":  func() error { _, err := r.BranchExists(ctx, "main"); return err },
		"Ahead":         func() error { _, err := r.Ahead(ctx, "warden/t/T1", "main"); return err },
		"FastForward":   func() error { return r.FastForward(ctx, "main", "warden/t/T1") },
		"Remove":        func() error { return r.Remove(ctx, path) },
		"Prepare":       func() error { _, err := r.Prepare(ctx, wtPath(t, "T2"), "warden/t/T2", []string{"main"}); return err },
		"Commit":        func() error { _, _, err := w.Commit(ctx, "s", ""); return err },
		"Head":          func() error { _, err := w.Head(ctx); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out after 1ns") {
			t.Errorf("%s with a 1 ns timeout = %v", name, err)
		}
	}
	g.Timeout = 0
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.Prepare(cancelled, wtPath(t, "T3"), "warden/t/T3", []string{"main"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Prepare with a cancelled context = %v", err)
	}
	if !exists(path) || gitT(t, root, "rev-parse", "warden/t/T1") != gitT(t, root, "rev-parse", "main") {
		t.Error("a call that timed out changed something")
	}
}

// hangingGit puts a git first in PATH that runs the real one and, when
// its arguments hold hang (" add -A ", " worktree add "), then sleeps 60 s
// in a child: a git call that really hangs, with a child, after what git
// made is on disk. (A filter no longer can: warden turns every one off.)
// It returns a function that takes it out of PATH again.
func hangingGit(t *testing.T, hang string) (restore func()) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := "#!/bin/sh\n\"" + real + "\" \"$@\"\nrc=$?\ncase \" $* \" in *\"" + hang + "\"*) sleep 60 ;; esac\nexit $rc\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	old := os.Getenv("PATH")
	t.Setenv("PATH", dir+string(os.PathListSeparator)+old)
	return func() { os.Setenv("PATH", old) }
}

// A git call that hangs is ended at the timeout with its children (the
// sleep), and the next call works.
func TestHangingCommitIsKilledAtTheTimeout(t *testing.T) {
	root := newRepo(t)
	g := driver(t)
	r := find(t, g, root)
	w := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
	write(t, filepath.Join(w.Dir, "x.txt"), "x\n")
	restore := hangingGit(t, " add -A ")

	g.Timeout = 300 * time.Millisecond
	start := time.Now()
	_, made, err := w.Commit(context.Background(), "s", "")
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) || made || !strings.Contains(err.Error(), "git add -A") {
		t.Errorf("Commit = %v %v, want a timeout of git add", made, err)
	}
	if took > 3*time.Second {
		t.Errorf("Commit took %v with a timeout of 300ms", took)
	}
	proctest.AssertNone(t)
	restore()
	g.Timeout = 0
	if _, made := commit(t, w, "s"); !made {
		t.Error("nothing committed once git no longer hung")
	}
}

// git cut short while it holds the index lock (hashing a file of 95 MiB,
// under MaxFileSize, takes git ~0.7 s; the timeout is 250 ms) removes the
// lock: the next commit works.
func TestCommitCutShortLeavesNoIndexLock(t *testing.T) {
	root := newRepo(t)
	g := driver(t)
	r := find(t, g, root)
	w := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
	sparse(t, filepath.Join(w.Dir, "blob.bin"), 95<<20)
	g.Timeout = 250 * time.Millisecond
	if _, _, err := w.Commit(context.Background(), "s", ""); !errors.Is(err, context.DeadlineExceeded) ||
		!strings.Contains(err.Error(), "git add -A") {
		t.Fatalf("Commit with a 250 ms timeout = %v, want git add cut short", err)
	}
	proctest.AssertNone(t)
	if exists(filepath.Join(w.admin, "index.lock")) {
		t.Error("index.lock left behind")
	}
	g.Timeout = 0
	if _, made := commit(t, w, "s"); !made {
		t.Error("nothing committed after the timeout")
	}
}

// A Prepare cut short by the timeout (git worktree add made the worktree and
// the branch, then hung) leaves no worktree, directory or branch.
func TestHangingPrepareLeavesNothing(t *testing.T) {
	root := newRepo(t)
	g := driver(t)
	r := find(t, g, root)
	hangingGit(t, " worktree add ")
	g.Timeout = 500 * time.Millisecond
	path := wtPath(t, "T1")
	start := time.Now()
	_, err := r.Prepare(context.Background(), path, "warden/t/T1", []string{"main"})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "worktree add") {
		t.Errorf("Prepare = %v, want a timeout of git worktree add", err)
	}
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("Prepare took %v with a timeout of 500ms", took)
	}
	proctest.AssertNone(t)
	assertNothingMade(t, r, root, path, "warden/t/T1")
}
