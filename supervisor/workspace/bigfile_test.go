//go:build !e2e

package workspace

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A 1.5 GB file (sparse: no room on disk) no longer stops every commit of
// its task: it is left out — named in the commit's message, still in the
// worktree — and the rest of the work is committed, each time, within a
// timeout git alone could not meet over the file, and without hashing it:
// the repository's objects stay small.
func TestBigFileIsLeftOutOfEveryCommit(t *testing.T) {
	root := newRepo(t)
	g := driver(t)
	r := find(t, g, root)
	w := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
	sparse(t, filepath.Join(w.Dir, "data", "dump [1].bin"), 1536<<20)
	write(t, filepath.Join(w.Dir, "work.txt"), "the task's work\n")
	g.Timeout = 5 * time.Second
	ctx := context.Background()

	for i, file := range []string{"work.txt", "more.txt"} {
		write(t, filepath.Join(w.Dir, file), "step "+file+"\n")
		c, err := w.CommitFiles(ctx, "T1: implementing (50%)", "")
		if err != nil || !c.Made {
			t.Fatalf("commit %d = %+v %v", i+1, c, err)
		}
		if kib := objectsKiB(t, root); kib > 256 { // the file, all zeros, deflates to ~1.5 MiB
			t.Errorf("after commit %d the repository's objects take %d KiB: the big file was hashed", i+1, kib)
		}
		if len(c.Skipped) != 1 || c.Skipped[0].Path != "data/dump [1].bin" || c.Skipped[0].Size != 1536<<20 {
			t.Errorf("commit %d skipped %+v", i+1, c.Skipped)
		}
		files := gitT(t, root, "ls-tree", "-r", "--name-only", c.Commit)
		if strings.Contains(files, "dump") || !strings.Contains(files, file) {
			t.Errorf("commit %d holds:\n%s", i+1, files)
		}
		msg := gitT(t, root, "log", "-1", "--format=%B", c.Commit)
		if !strings.Contains(msg, "Left out (larger than 100 MiB, still in the worktree):\n- data/dump [1].bin (1.5 GiB)") {
			t.Errorf("commit %d's message:\n%s", i+1, msg)
		}
	}
	if !exists(filepath.Join(w.Dir, "data", "dump [1].bin")) {
		t.Error("the big file is gone from the worktree")
	}
	if got := Size(MaxFileSize); got != "100 MiB" {
		t.Errorf("Size(MaxFileSize) = %q", got)
	}
}

// objectsKiB is what the repository's objects take (git count-objects:
// loose and packed).
func objectsKiB(t *testing.T, root string) int {
	t.Helper()
	kib := 0
	for _, l := range strings.Split(gitT(t, root, "count-objects", "-v"), "\n") {
		k, v, _ := strings.Cut(l, ": ")
		if k == "size" || k == "size-pack" {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			kib += n
		}
	}
	return kib
}
