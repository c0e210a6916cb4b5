//go:build !e2e

package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCommitWhenDirtyAndNotWhenClean(t *testing.T) {
	root := newRepo(t)
	write(t, filepath.Join(root, "gone.txt"), "to delete\n")
	write(t, filepath.Join(root, ".gitignore"), "*.log\n")
	commitAll(t, root, "more")
	r := find(t, driver(t), root)
	w := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
	ctx := context.Background()

	start, _ := w.Head(ctx)
	if c, made := commit(t, w, "T1: in_progress (0%)"); made || c != start {
		t.Errorf("clean Commit = %s %v, want %s false", c, made, start)
	}
	write(t, filepath.Join(w.Dir, "a.txt"), "changed\n")
	write(t, filepath.Join(w.Dir, "new", "b.txt"), "new\n")
	write(t, filepath.Join(w.Dir, "build.log"), "ignored\n")
	os.Remove(filepath.Join(w.Dir, "gone.txt"))
	c, made, err := w.Commit(ctx, "T1: in_progress (40%)", "Completed:\n- a\n# not a comment\n\nRemaining:\n- b")
	if err != nil || !made || c == start {
		t.Fatalf("dirty Commit = %s %v %v", c, made, err)
	}
	if got := gitT(t, root, "rev-parse", "warden/t/T1"); got != c {
		t.Errorf("branch at %s, Commit said %s", got, c)
	}
	if got := gitT(t, root, "log", "-1", "--format=%an <%ae>|%cn <%ce>", c); got != "warden <warden@localhost>|warden <warden@localhost>" {
		t.Errorf("author|committer = %q", got)
	}
	want := "T1: in_progress (40%)\n\nCompleted:\n- a\n# not a comment\n\nRemaining:\n- b"
	if got := gitT(t, root, "log", "-1", "--format=%B", c); got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	if got := gitT(t, root, "diff-tree", "--no-commit-id", "--name-status", "-r", c); got != "M\ta.txt\nD\tgone.txt\nA\tnew/b.txt" {
		t.Errorf("committed changes:\n%s", got)
	}
	if c2, made := commit(t, w, "again"); made || c2 != c {
		t.Errorf("Commit after commit = %s %v, want %s false", c2, made, c)
	}
	if got := gitT(t, w.Path, "status", "--porcelain", "--ignored"); got != "!! build.log" {
		t.Errorf("status after commit = %q", got)
	}
}

// hostileRepo configures root the way a user's repository may be: hooks
// that fail (and leave a mark) wherever git looks for them, signing with a
// program that fails, an identity that must come from the config, merges
// that must be fast-forwards, messages stripped of # lines.
func hostileRepo(t *testing.T, root string) (marks string) {
	marks = filepath.Join(t.TempDir(), "marks")
	hooksPath := filepath.Join(t.TempDir(), "hooks")
	for _, dir := range []string{filepath.Join(root, ".git", "hooks"), hooksPath} {
		for _, hook := range []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit",
			"pre-merge-commit", "post-merge", "post-checkout", "reference-transaction"} {
			write(t, filepath.Join(dir, hook), "#!/bin/sh\necho "+hook+" >> "+marks+"\nexit 1\n")
			os.Chmod(filepath.Join(dir, hook), 0o755)
		}
	}
	for _, kv := range [][2]string{
		{"core.hooksPath", hooksPath}, {"commit.gpgSign", "true"}, {"gpg.program", "false"},
		{"user.useConfigOnly", "true"}, {"user.name", "The User"}, {"user.email", "user@example.com"},
		{"merge.ff", "only"}, {"commit.cleanup", "strip"}, {"rerere.enabled", "true"}, {"gc.auto", "1"},
	} {
		gitT(t, root, "config", kv[0], kv[1])
	}
	return marks
}

// Warden's own git work runs no hook, signs nothing and is authored by
// warden, whatever the repository's configuration says.
func TestCommitAndMergeIgnoreHooksSigningAndConfig(t *testing.T) {
	root := newRepo(t)
	r := find(t, driver(t), root)
	dependencies(t, r, map[string]string{"x.txt": "x\n"}, map[string]string{"y.txt": "y\n"})
	marks := hostileRepo(t, root)
	if _, err := gitTry(root, "commit", "--allow-empty", "-m", "by the user"); err == nil {
		t.Fatal("the hostile configuration does not make an ordinary commit fail")
	}
	os.Remove(marks)

	w := prepare(t, r, wtPath(t, "T3"), "warden/t/T3", "warden/t/T1", "warden/t/T2")
	write(t, filepath.Join(w.Dir, "z.txt"), "z\n")
	c, made, err := w.Commit(context.Background(), "T3: done (100%)", "# kept")
	if err != nil || !made {
		t.Fatalf("Commit = %s %v %v", c, made, err)
	}
	const warden = "warden <warden@localhost>|warden <warden@localhost>|N"
	if got := gitT(t, root, "log", "-2", "--format=%an <%ae>|%cn <%ce>|%G?", c); got != warden+"\n"+warden {
		t.Errorf("last two commits (commit, merge):\n%s", got)
	}
	if got := gitT(t, root, "log", "-1", "--format=%b", c); got != "# kept" {
		t.Errorf("body = %q", got)
	}
	if b, err := os.ReadFile(marks); err == nil {
		t.Errorf("hooks ran:\n%s", b)
	}
}

// A worktree the agent's own git has taken elsewhere is not committed.
func TestCommitRefusesWhenNotOnItsBranchOrMidOperation(t *testing.T) {
	root := newRepo(t)
	r := find(t, driver(t), root)
	w := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
	write(t, filepath.Join(w.Dir, "a.txt"), "x\n")
	gitT(t, w.Path, "checkout", "--quiet", "--detach")
	if _, _, err := w.Commit(context.Background(), "s", ""); err == nil || !strings.Contains(err.Error(), "not on its branch") {
		t.Errorf("Commit on a detached HEAD = %v", err)
	}
	gitT(t, w.Path, "checkout", "--quiet", "warden/t/T1")
	gitDir := gitT(t, w.Path, "rev-parse", "--absolute-git-dir")
	write(t, filepath.Join(gitDir, "MERGE_HEAD"), gitT(t, root, "rev-parse", "main")+"\n")
	if _, _, err := w.Commit(context.Background(), "s", ""); err == nil || !strings.Contains(err.Error(), "merge is under way") {
		t.Errorf("Commit during a merge = %v", err)
	}
	os.Remove(filepath.Join(gitDir, "MERGE_HEAD"))
	if _, made := commit(t, w, "s"); !made {
		t.Error("nothing committed once the merge was over")
	}
}

// The agent's own git holding the index lock delays a commit; it does not
// fail it, unless the lock stays.
func TestCommitWaitsForTheIndexLock(t *testing.T) {
	root := newRepo(t)
	r := find(t, driver(t), root)
	w := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
	lock := filepath.Join(gitT(t, w.Path, "rev-parse", "--absolute-git-dir"), "index.lock")
	write(t, filepath.Join(w.Dir, "a.txt"), "x\n")
	write(t, lock, "")
	done := make(chan struct{})
	time.AfterFunc(150*time.Millisecond, func() { os.Remove(lock); close(done) })
	if _, made := commit(t, w, "s"); !made {
		t.Error("nothing committed")
	}
	<-done
	write(t, filepath.Join(w.Dir, "a.txt"), "y\n")
	write(t, lock, "")
	if _, _, err := w.Commit(context.Background(), "s", ""); err == nil || !strings.Contains(err.Error(), "index.lock") {
		t.Errorf("Commit with a lock that stays = %v", err)
	}
}
