//go:build e2e

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wardenhq/warden/testrig/proctest"
)

// kill -9 of warden (its agents die with their terminal) while the agents
// work in worktrees, with bytes on disk no commit holds yet; then --resume:
// everything the agents wrote is in a commit on its task's branch, and the
// tasks complete there.
func TestKill9ThenResumeCommitsEveryByte(t *testing.T) {
	defer proctest.AssertNone(t)
	repo := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".warden/\n"), 0o644)
	git("add", "-A")
	git("commit", "-q", "-m", "start")
	src, _ := os.ReadFile(workerTeam(t, "worker:steps=8:write=notes.txt", "worker:steps=8:write=notes.txt"))
	team := filepath.Join(repo, "team.toml")
	text := strings.Replace(string(src), "\n", "\nworkspace = \"worktree\"\n", 1)
	os.WriteFile(team, []byte(text), 0o600)
	git("add", "team.toml")
	git("commit", "-q", "-m", "team")

	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (25%)", 1)
	out.waitFor(t, "CHECKPOINT: T2 - implementing (25%)", 1)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// What an agent wrote after its last commit, as a kill -9 leaves it.
	tree := filepath.Join(repo, ".warden", "worktrees", "T1")
	f, err := os.OpenFile(filepath.Join(tree, "notes.txt"), os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatalf("T1's worktree: %v", err)
	}
	f.WriteString("written just before the kill\n")
	f.Close()

	cmd2, out2 := runWarden(t, "run", team, "--resume")
	if err := cmd2.Wait(); err != nil {
		t.Fatalf("resumed run: %v\n%s", err, out2.dump())
	}
	notes := git("show", "warden/lifecycle/T1:notes.txt")
	if !strings.Contains(notes, "written just before the kill") || !strings.Contains(notes, "T1 step 8") {
		t.Errorf("T1's branch holds:\n%s", notes)
	}
	if strings.Contains(git("status", "--porcelain", "--untracked-files=no"), "notes.txt") {
		t.Error("the user's checkout was touched")
	}
	if status := git("-C", tree, "status", "--porcelain"); status != "" {
		t.Errorf("T1's worktree still holds uncommitted work: %s", status)
	}
}

// A run in worktree mode with land = "branch" ends by landing its complete
// tasks: warden/{team}/landed holds both tasks' work, land_verify ran on
// it, base is where it was, and the run's exit code is the tasks' (issue 37).
func TestARunLandsItsTasksAtTheEnd(t *testing.T) {
	defer proctest.AssertNone(t)
	repo := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".warden/\n"), 0o644)
	git("add", "-A")
	git("commit", "-q", "-m", "start")
	base := git("rev-parse", "main")
	src, _ := os.ReadFile(workerTeam(t, "worker:steps=2:write=one.txt", "worker:steps=2:write=two.txt"))
	team := filepath.Join(repo, "team.toml")
	text := strings.Replace(string(src), "\n",
		"\nworkspace = \"worktree\"\nland = \"branch\"\nland_verify = [\"sh\", \"-c\", \"test -s one.txt && test -s two.txt\"]\n", 1)
	os.WriteFile(team, []byte(text), 0o600)

	cmd, out := runWarden(t, "run", team)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("warden run: %v\n%s", err, out.dump())
	}
	if !strings.Contains(out.dump(), "LANDED:") || strings.Contains(out.dump(), "NOT LANDED:") {
		t.Errorf("the run's output says no land:\n%s", out.dump())
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if got := git("show", "warden/lifecycle/landed:"+f); !strings.Contains(got, "step 2") {
			t.Errorf("the landed branch's %s: %q", f, got)
		}
	}
	if now := git("rev-parse", "main"); now != base {
		t.Errorf("land = \"branch\" moved main from %s to %s", base, now)
	}
	// The morning report, written again after the land, says what landed.
	if md, _ := os.ReadFile(filepath.Join(repo, ".warden", "report.md")); !strings.Contains(string(md), "Landed on warden/lifecycle/landed") ||
		!strings.Contains(string(md), "Merged in order: T1, T2.") {
		t.Errorf("report.md after the land:\n%s", md)
	}
}
