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

	"github.com/wardenhq/warden/internal/fakeagent"
)

// Hostile agents against warden's git (issue 22): each attack is planted by
// a real agent process (the fake agent's gitattack mode) in its worktree,
// then warden's git works on that worktree.

// agentDoes runs the fake agent in dir with gitattack's parameters and no
// input (it plants, then ends), and returns its exit code.
func agentDoes(t *testing.T, dir string, params ...string) int {
	t.Helper()
	argv := fakeagent.Command("gitattack")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), testIdentity...), fakeagent.Env("gitattack:"+strings.Join(params, ":"))...)
	out, err := cmd.CombinedOutput()
	if !strings.Contains(string(out), "planted") {
		t.Fatalf("the agent did not plant %v: %v\n%s", params, err, out)
	}
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return 0
}

// noMarker fails the test when the planted program ran.
func noMarker(t *testing.T, marker string) {
	t.Helper()
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("the agent's program ran:\n%s", b)
	}
}

// refused checks err is a *RefusedError whose reason says why.
func refused(t *testing.T, what string, err error, why string) {
	t.Helper()
	var r *RefusedError
	if !errors.As(err, &r) || !strings.Contains(r.Reason, why) {
		t.Errorf("%s = %v, want a refusal saying %q", what, err, why)
	}
}

// An agent that puts a repository of its own in place of its worktree's
// .git file (on the same branch; core.fsmonitor, or a clean filter with a
// .gitattributes choosing it) gets nothing run: the commit is refused, and
// even past that check warden's git names the admin dir, never the
// agent's .git, so the program does not run and the commit lands on the
// task's branch in the user's repository.
func TestAgentsOwnRepositoryRunsNothing(t *testing.T) {
	for _, kind := range []string{"fsmonitor", "filter"} {
		t.Run(kind, func(t *testing.T) {
			root := newRepo(t)
			r := find(t, driver(t), root)
			w := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
			start := gitT(t, root, "rev-parse", "warden/t/T1")
			marker := filepath.Join(t.TempDir(), "ran")
			write(t, filepath.Join(w.Dir, "work.txt"), "the task's work\n")
			agentDoes(t, w.Dir, "plant="+kind, "marker="+marker)

			_, _, err := w.Commit(context.Background(), "T1: implementing (50%)", "")
			refused(t, "Commit", err, ".git is a directory")
			noMarker(t, marker)
			if got := gitT(t, root, "rev-parse", "warden/t/T1"); got != start {
				t.Errorf("the branch moved to %s", got)
			}

			// The second wall: the same commit without the check.
			off, err := w.git.driversOff(context.Background(), w.site(nil))
			if err != nil {
				t.Fatal(err)
			}
			c, err := w.commitOnce(context.Background(), off, "T1: past the check", "")
			if err != nil || !c.Made {
				t.Fatalf("commit past the check = %+v %v", c, err)
			}
			noMarker(t, marker)
			if got := gitT(t, root, "show", c.Commit+":work.txt"); got != "the task's work" {
				t.Errorf("work.txt on the branch = %q (a filter ran?)", got)
			}
			if got := gitT(t, root, "rev-parse", "warden/t/T1"); got != c.Commit {
				t.Errorf("branch at %s, the commit is %s", got, c.Commit)
			}
		})
	}
}

// A .git file naming another repository makes warden commit nothing there
// (nor anywhere): refused, the other repository's branches unchanged.
func TestGitFileNamingAnotherRepositoryIsRefused(t *testing.T) {
	root := newRepo(t)
	other := newRepo(t)
	r := find(t, driver(t), root)
	w := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
	write(t, filepath.Join(w.Dir, "work.txt"), "the task's work\n")
	agentDoes(t, w.Dir, "plant=gitdir", "target="+other)
	before := gitT(t, other, "for-each-ref", "--format=%(refname) %(objectname)")

	_, _, err := w.Commit(context.Background(), "T1: implementing (50%)", "")
	refused(t, "Commit", err, ".git names "+filepath.Join(other, ".git"))
	if after := gitT(t, other, "for-each-ref", "--format=%(refname) %(objectname)"); after != before {
		t.Errorf("the other repository's refs changed:\n%s\nnow:\n%s", before, after)
	}
	if out, _ := gitTry(other, "log", "--all", "--format=%an %s"); strings.Contains(out, "warden") {
		t.Errorf("warden committed into the other repository:\n%s", out)
	}
	if _, err := r.Prepare(context.Background(), w.Path, "warden/t/T1", nil); err == nil {
		t.Error("Prepare took the redirected worktree up again")
	}
}

// A worktree replaced by a symbolic link to the user's checkout is never
// followed: no commit, no reuse, no removal (git would empty the link's
// target), and the user's checkout is untouched.
func TestSymlinkedWorktreeIsNeverFollowed(t *testing.T) {
	root := newRepo(t)
	r := find(t, driver(t), root)
	path := wtPath(t, "T1")
	w := prepare(t, r, path, "warden/t/T1", "main")
	write(t, filepath.Join(root, "mine.txt"), "the user's, uncommitted\n")
	if code := agentDoes(t, w.Dir, "plant=symlink", "target="+root); code != 3 {
		t.Fatalf("the agent exited %d", code)
	}
	ctx := context.Background()
	_, _, err := w.Commit(ctx, "T1: implementing (50%)", "")
	refused(t, "Commit", err, "is a symbolic link to "+root)
	_, err = r.Prepare(ctx, path, "warden/t/T1", nil)
	refused(t, "Prepare", err, "is a symbolic link")
	if err := r.Remove(ctx, path); err == nil {
		t.Error("Remove followed the link")
	}
	if got := read(t, filepath.Join(root, "mine.txt")); got != "the user's, uncommitted\n" {
		t.Errorf("the user's file = %q", got)
	}
	if got := gitT(t, root, "status", "--porcelain"); got != "?? mine.txt" {
		t.Errorf("the user's checkout: %q", got)
	}
	if got := gitT(t, root, "log", "--format=%an", "-1", "warden/t/T1"); got != "tester" {
		t.Errorf("the task's branch got a commit by %s", got)
	}
}

// A deleted worktree is ErrGone (not a refusal), and Prepare makes it again
// from the task's branch.
func TestDeletedWorktreeIsGoneThenMadeAgain(t *testing.T) {
	root := newRepo(t)
	r := find(t, driver(t), root)
	path := wtPath(t, "T1")
	w := prepare(t, r, path, "warden/t/T1", "main")
	write(t, filepath.Join(w.Dir, "kept.txt"), "committed\n")
	c, _ := commit(t, w, "T1: implementing (50%)")
	if code := agentDoes(t, w.Dir, "plant=delete"); code != 3 {
		t.Fatalf("the agent exited %d", code)
	}
	if err := w.Verify(); !errors.Is(err, ErrGone) {
		t.Errorf("Verify of a deleted worktree = %v", err)
	}
	w2 := prepare(t, r, path, "warden/t/T1")
	if head, _ := w2.Head(context.Background()); head != c || read(t, filepath.Join(w2.Dir, "kept.txt")) != "committed\n" {
		t.Errorf("made again at %s, want the branch's %s", head, c)
	}
	if err := w2.Verify(); err != nil {
		t.Errorf("Verify of the worktree made again = %v", err)
	}
}

// Worktree.Info reads the branch and its head from the user's repository:
// a .git the agent pointed at another repository does not change what it
// says (nil: the worktree is refused), and an intact one says the branch.
func TestInfoIsReadFromTheRepository(t *testing.T) {
	root := newRepo(t)
	other := newRepo(t)
	r := find(t, driver(t), root)
	w := prepare(t, r, wtPath(t, "T1"), "warden/t/T1", "main")
	write(t, filepath.Join(w.Dir, "x.txt"), "x\n")
	c, _ := commit(t, w, "T1: implementing (50%)")
	if g := w.Info(); g == nil || g.Branch != "warden/t/T1" || g.Head != c {
		t.Errorf("Info = %+v, want warden/t/T1 at %s", g, c)
	}
	agentDoes(t, w.Dir, "plant=gitdir", "target="+other)
	if g := w.Info(); g != nil {
		t.Errorf("Info of a redirected worktree = %+v", g)
	}
}
