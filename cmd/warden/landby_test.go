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

// landByRepo is a repository whose team's two tasks both write shared.txt
// (siblings that conflict at the land), landing within the run with
// land_by = "w1"; w1's mode is mode1. It returns the team file and git.
func landByRepo(t *testing.T, mode1 string) (string, func(args ...string) string) {
	t.Helper()
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
	src, _ := os.ReadFile(workerTeam(t, mode1, "worker:steps=2:write=shared.txt:resolve=1"))
	team := filepath.Join(repo, "team.toml")
	text := strings.Replace(string(src), "\n", "\nworkspace = \"worktree\"\nland = \"branch\"\nland_by = \"w1\"\n"+
		"land_verify = [\"sh\", \"-c\", \"! grep -q '<<<<<<<' shared.txt && grep -q T1 shared.txt && grep -q T2 shared.txt\"]\n", 1)
	os.WriteFile(team, []byte(text), 0o600)
	return team, git
}

// warden run with land_by: the conflict between T1 and T2 becomes land.T2
// for w1, which resolves it; the land goes on and lands both. The output
// says so (LAND HANDED, LANDED), and so do STATUS.md and report.md.
func TestARunHandsItsLandToAnAgent(t *testing.T) {
	defer proctest.AssertNone(t)
	team, git := landByRepo(t, "worker:steps=2:write=shared.txt:resolve=1")
	cmd, out := runWarden(t, "run", team)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("warden run: %v\n%s", err, out.dump())
	}
	for _, want := range []string{"LAND HANDED: land.T2 to w1 (merging warden/lifecycle/T2 conflicts in shared.txt); attempt 1 of 2",
		"LANDED: T1 (", "LANDED: T2 (", "LAND VERIFY: passed"} {
		if !strings.Contains(out.dump(), want) {
			t.Errorf("the run's output lacks %q:\n%s", want, out.dump())
		}
	}
	if got := git("show", "warden/lifecycle/landed:shared.txt"); strings.Contains(got, "<<<<<<<") || !strings.Contains(got, "T2 step 2") {
		t.Errorf("the landed shared.txt:\n%s", got)
	}
	state := filepath.Join(filepath.Dir(team), ".warden")
	if md, _ := os.ReadFile(filepath.Join(state, "STATUS.md")); !strings.Contains(string(md), "## Land\n\n- warden/lifecycle/landed: landed T1, T2\n") {
		t.Errorf("STATUS.md:\n%s", md)
	}
	if md, _ := os.ReadFile(filepath.Join(state, "report.md")); !strings.Contains(string(md), "Merged in order: T1, T2.") {
		t.Errorf("report.md:\n%s", md)
	}
}

// kill -9 of warden while w1 works on the land task, then warden run
// again: the run is carried on, land.T2 is taken back (its worktree, its
// records) and completed, and the land goes on from where it stopped.
func TestALandHalfDoneIsCarriedOn(t *testing.T) {
	defer proctest.AssertNone(t)
	team, git := landByRepo(t, "worker:steps=6:write=shared.txt:resolve=1")
	cmd, out := runWarden(t, "run", team)
	defer cmd.Process.Kill() // a failed wait leaves nothing behind
	out.waitFor(t, "LAND HANDED: land.T2", 1)
	out.waitFor(t, "CHECKPOINT: land.T2 - implementing", 1)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	cmd2, out2 := runWarden(t, "run", team)
	if err := cmd2.Wait(); err != nil {
		t.Fatalf("the run carried on: %v\n%s", err, out2.dump())
	}
	for _, want := range []string{"CARRYING ON: run", "LANDED: T2 (", "LAND VERIFY: passed"} {
		if !strings.Contains(out2.dump(), want) {
			t.Errorf("the carried-on run's output lacks %q:\n%s", want, out2.dump())
		}
	}
	if strings.Contains(out2.dump(), "LAND HANDED") {
		t.Errorf("the land was handed again:\n%s", out2.dump())
	}
	if got := git("show", "warden/lifecycle/landed:shared.txt"); strings.Contains(got, "<<<<<<<") || !strings.Contains(got, "T1 step 6") {
		t.Errorf("the landed shared.txt:\n%s", got)
	}
}
