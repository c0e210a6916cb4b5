//go:build !e2e

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// warden land's exit codes: 0 everything landed, 1 a conflict (named on
// stdout) or a failing land_verify stopped it, 2 bad usage.
func TestLandExitCodes(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(root, "repo")
	git := func(args ...string) {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.MkdirAll(repo, 0o755)
	git("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644)
	git("add", "-A")
	git("commit", "-q", "-m", "start")
	branch := func(name, file, content string) queue.Status {
		git("checkout", "-q", "-b", "warden/night/"+name, "main")
		os.WriteFile(filepath.Join(repo, file), []byte(content), 0o644)
		git("add", "-A")
		git("commit", "-q", "-m", name)
		git("checkout", "-q", "main")
		return queue.Status{ID: name, State: queue.Complete, Branch: "warden/night/" + name, Base: "main", Repo: repo}
	}
	t1, t2, t3 := branch("T1", "one.txt", "1\n"), branch("T2", "two.txt", "2\n"), branch("T3", "one.txt", "not 1\n")
	teamName := "night"
	land := func(dir string, tasks []queue.Status, args ...string) (int, string) {
		t.Helper()
		d, err := state.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		d.WriteSnapshot(state.Snapshot{Team: teamName, RunID: "R1", Tasks: tasks})
		var out, errOut bytes.Buffer
		code := realMain(append([]string{"land"}, args...), &out, &errOut)
		return code, out.String() + errOut.String()
	}

	dir := filepath.Join(root, "state")
	if code, out := land(dir, []queue.Status{t1, t2}, "--state-dir", dir); code != 0 ||
		!strings.Contains(out, "LANDED: T2 (warden/night/T2 merged into warden/night/landed)") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if code, out := land(dir, []queue.Status{t1, t2, t3}, "--state-dir", dir); code != 1 ||
		!strings.Contains(out, "NOT LANDED: T3 - merging warden/night/T3 conflicts in one.txt") {
		t.Errorf("a conflict: exit %d:\n%s", code, out)
	}

	teamName = "day" // warden/night/landed is checked out in the first state dir
	team := filepath.Join(root, "day.toml")
	os.WriteFile(team, []byte("name = \"day\"\nstate_dir = \"state2\"\nworkspace = \"worktree\"\nland_verify = [\"sh\", \"-c\", \"echo no good; exit 1\"]\n"+
		"[[agent]]\nname = \"a\"\ncommand = [\"x\"]\ndir = \"repo\"\n[[task]]\nid = \"T1\"\nprompt = \"p\"\n"), 0o644)
	if code, out := land(filepath.Join(root, "state2"), []queue.Status{t1}, team); code != 1 ||
		!strings.Contains(out, "NOT LANDED: T1 - land_verify `sh -c echo no good; exit 1` after merging T1") ||
		!strings.Contains(out, "    no good") {
		t.Errorf("a failing land_verify: exit %d:\n%s", code, out)
	}
	if code, out := land(dir, nil, "a.toml", "b.toml"); code != 2 {
		t.Errorf("bad usage: exit %d:\n%s", code, out)
	}
}
