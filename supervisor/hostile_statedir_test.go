//go:build e2e

package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/box"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/testrig/proctest"
)

// A hostile agent against the state dir (issue 33): agent s (the fake
// agent's statewriter mode), its task dispatched, tries to write what
// decides for it — state.json, its task's record, a record of its own in
// checkpoints/, events.jsonl, STATUS.md, the handoff — and then what its
// own processes must do: a Stop-hook message over the hook socket, a line
// in its spool, logs/hook.log, a file in its work dir (the team file's
// dir, which holds the state dir: the shared workspace).

// stateWriterRun is what s did, with the state dir it did it to.
type stateWriterRun struct {
	out, state string
}

func runStateWriter(t *testing.T, sandbox string) stateWriterRun {
	t.Helper()
	return runStateWriterIn(t, sandbox, "")
}

// runStateWriterIn runs s in repo with its task in a worktree of its own
// (workspace = "worktree"; the state dir repo/.warden), or, repo "", in
// the team file's dir (the shared workspace).
func runStateWriterIn(t *testing.T, sandbox, repo string) stateWriterRun {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	header := `checkpoint_interval = "10m"
checkpoint_timeout = "5s"
shutdown_timeout = "2s"
sandbox = "` + sandbox + `"
[[task]]
id = "T1"
prompt = "Work."
`
	if repo != "" {
		header = "workspace = \"worktree\"\n" + header
	}
	cfg := writeTeam(t, header, fakeAgent{name: "s", mode: "statewriter:out=" + out, restart: "never", dir: repo})
	if repo != "" {
		cfg.StateDir = filepath.Join(repo, ".warden")
		cfg.SignalFile = filepath.Join(cfg.StateDir, "checkpoint-needed")
	}
	team, _, wait := startTeamCfg(t, cfg)
	var lines string
	waitFor(t, "s's tries", func() bool {
		b, _ := os.ReadFile(out)
		lines = string(b)
		return strings.HasSuffix(lines, "done\n")
	})
	record := filepath.Join(team.cfg.StateDir, "checkpoints", "s-T1.json")
	waitFor(t, "the answer s's hook sent", func() bool {
		b, _ := os.ReadFile(record)
		return strings.Contains(string(b), "VIA-HOOK")
	})
	team.Force()
	wait()
	if n := countEvents(eventsOf(t, team.cfg), event.CheckpointReceived, "s"); n < 1 {
		t.Errorf("%d checkpoint_received for s: its hook did not reach warden", n)
	}
	return stateWriterRun{out: lines, state: team.cfg.StateDir}
}

// decisive are the files s tries to write that decide for it.
func decisive(dir string) []string {
	l := state.NewLayout(dir)
	return []string{l.State(), filepath.Join(l.Checkpoints(), "s-T1.json"), l.Events(), l.Status(),
		filepath.Join(l.Checkpoints(), "s-forged.json"), l.Handoff(), filepath.Join(l.Handoffs(), "forged.md")}
}

// With the box on, each write to the state dir is refused as a write to a
// read-only file system (EROFS): nothing forged is on disk after; s's hook
// — the real `warden hook`, run inside the walls — reached warden (its
// answer is recorded), and its spool, hook.log and work dir took its
// writes.
func TestHostileAgentWritesTheStateDirInTheBox(t *testing.T) {
	defer proctest.AssertNone(t)
	if ok, why := box.WallsAvailable(); !ok {
		t.Skip("no walls here: " + why)
	}
	bin, err := buildWarden()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("WARDEN_BIN", bin)
	r := runStateWriter(t, "box")
	t.Logf("s's tries:\n%s", r.out)
	for _, p := range decisive(r.state) {
		if line := lineOf(r.out, "write "+p+": "); !strings.HasSuffix(line, ": read-only file system") {
			t.Errorf("s's write of %s was not refused as read-only (EROFS): %q", p, line)
		}
		if b, _ := os.ReadFile(p); strings.Contains(string(b), "FORGED-BY-AGENT") {
			t.Errorf("%s holds what s forged", p)
		}
	}
	for _, want := range []string{"hook: allowed", "hook by warden hook", "spool: allowed", "hook.log: allowed", "work: allowed"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("s's tries lack %q: its own writes must go on", want)
		}
	}
}

// With the box off every write to the state dir works (the seal still
// refuses a record s forged: TestForged*); the rest works as with it.
func TestHostileAgentWritesTheStateDirWithoutTheBox(t *testing.T) {
	defer proctest.AssertNone(t)
	r := runStateWriter(t, "off")
	t.Logf("s's tries:\n%s", r.out)
	for _, p := range append(decisive(r.state), "hook", "spool", "hook.log", "work") {
		if !strings.Contains(r.out, p+": allowed") {
			t.Errorf("without the box s's write of %s was refused (the box-off row of docs/security.md is wrong)", p)
		}
	}
}

// lineOf is the line of out that starts with prefix ("" when none).
func lineOf(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// With the box on and the task in a worktree under the state dir
// (worktrees/T1), the state dir is refused as in the shared workspace and
// the worktree, s's work dir, takes its writes.
func TestHostileAgentWritesTheStateDirFromItsWorktree(t *testing.T) {
	defer proctest.AssertNone(t)
	if ok, why := box.WallsAvailable(); !ok {
		t.Skip("no walls here: " + why)
	}
	repo, _ := gitRepo(t)
	r := runStateWriterIn(t, "box", repo)
	t.Logf("s's tries:\n%s", r.out)
	for _, p := range decisive(r.state) {
		if line := lineOf(r.out, "write "+p+": "); !strings.HasSuffix(line, ": read-only file system") {
			t.Errorf("s's write of %s was not refused as read-only (EROFS): %q", p, line)
		}
	}
	if !strings.Contains(r.out, "work: allowed") {
		t.Error("s could not write its worktree")
	}
	if b, err := os.ReadFile(filepath.Join(r.state, "worktrees", "T1", "statewriter-work.txt")); string(b) != "work\n" {
		t.Errorf("s's work is not in its worktree: %q, %v", b, err)
	}
}
