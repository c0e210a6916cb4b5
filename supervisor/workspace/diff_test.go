//go:build !e2e

package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Diff is the task branch's change since it left base (base's own later
// commits not in it), never through an external diff driver the
// repository names, and cut at max.
func TestDiffSinceBase(t *testing.T) {
	root := newRepo(t)
	r := find(t, driver(t), root)
	ctx := context.Background()
	w := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
	write(t, filepath.Join(w.Dir, "f.txt"), "the task's line\n")
	commit(t, w, "task")
	write(t, filepath.Join(root, "b.txt"), "on main\n")
	commitAll(t, root, "main moves on")
	marker := filepath.Join(t.TempDir(), "ran")
	gitT(t, root, "config", "diff.external", "touch "+marker)
	d, cut, err := r.Diff(ctx, "main", "warden/t/T1", 0)
	if err != nil || cut {
		t.Fatalf("Diff: %v (cut %v)", err, cut)
	}
	if !strings.Contains(d, "+the task's line") || strings.Contains(d, "on main") {
		t.Errorf("diff:\n%s", d)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the repository's external diff ran")
	}
	if d, cut, _ := r.Diff(ctx, "main", "warden/t/T1", 10); !cut || len(d) != 10 {
		t.Errorf("cut %v, %d bytes", cut, len(d))
	}
	if _, _, err := r.Diff(ctx, "main", "-x", 0); err == nil {
		t.Error("a branch that looks like an option was run")
	}
}
