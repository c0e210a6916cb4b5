package workspace

import (
	"context"
	"errors"
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

// slowFilter makes git run `sleep 60` on every *.slow file it cleans (adds)
// or smudges (checks out): a git call that really hangs, with a child.
func slowFilter(t *testing.T, root, which string) {
	gitT(t, root, "config", "filter.slow."+which, "sleep 60")
}

// A git call that hangs is ended at the timeout with its children (the
// filter's sleep), and leaves no lock behind: the next call works.
func TestHangingCommitIsKilledAtTheTimeout(t *testing.T) {
	root := newRepo(t)
	g := driver(t)
	r := find(t, g, root)
	w := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
	write(t, filepath.Join(w.Dir, ".gitattributes"), "*.slow filter=slow\n")
	write(t, filepath.Join(w.Dir, "x.slow"), "x\n")
	slowFilter(t, root, "clean")

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
	if exists(filepath.Join(gitT(t, w.Path, "rev-parse", "--absolute-git-dir"), "index.lock")) {
		t.Error("index.lock left behind")
	}
	gitT(t, root, "config", "--unset", "filter.slow.clean")
	if _, made := commit(t, w, "s"); !made {
		t.Error("nothing committed after the filter was removed")
	}
}

// A Prepare cut short by the timeout (a checkout that hangs) leaves no
// worktree, directory or branch.
func TestHangingPrepareLeavesNothing(t *testing.T) {
	root := newRepo(t)
	write(t, filepath.Join(root, ".gitattributes"), "*.slow filter=slow\n")
	write(t, filepath.Join(root, "x.slow"), "x\n")
	commitAll(t, root, "a slow file")
	slowFilter(t, root, "smudge")
	g := driver(t)
	r := find(t, g, root)
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
