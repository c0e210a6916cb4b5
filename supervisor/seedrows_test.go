//go:build e2e

package supervisor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/event"
)

// A blocked agent is asked again only after three checkpoint intervals, and
// its record's next_checkpoint_expected says so (it said one interval): the
// next request comes within a second of the time the record names. The
// periodic dashboard counts the task as blocked and lists it under
// Blocked with its agent and blockers.
func TestBlockedRecordSaysWhenItIsAskedNext(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `checkpoint_interval = "1s"
checkpoint_timeout = "5s"
shutdown_timeout = "2s"
stale_warning = "1m"
stale_failure = "2m"
[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "w1", mode: "worker:steps=1:final=blocked"})
	_, stdout, _ := runTeamWith(t, cfg, 6*time.Second, func(team *Team) error {
		team.dashboardEvery = 100 * time.Millisecond
		return nil
	})
	files, _ := filepath.Glob(filepath.Join(cfg.StateDir, "checkpoints", "history", "T1", "*.json"))
	var blocked []protocol.Checkpoint
	for _, f := range files {
		var cp protocol.Checkpoint
		if b, err := os.ReadFile(f); err == nil && json.Unmarshal(b, &cp) == nil && cp.Status == protocol.StatusBlocked && cp.Trigger == protocol.TriggerRequest {
			blocked = append(blocked, cp)
		}
	}
	if len(blocked) == 0 {
		t.Fatalf("no blocked record in the history (%d files)\n%s", len(files), stdout)
	}
	var requests []time.Time
	for _, e := range eventsOf(t, cfg) {
		if e["event"] == event.CheckpointRequested && e["trigger"] == nil { // the monitor's, not the team checkpoint's
			requests = append(requests, eventTime(t, e))
		}
	}
	checked := 0
	for _, cp := range blocked {
		next := cp.NextCheckpointExpected
		if next == nil || !next.Equal(cp.UpdatedAt.Add(3*time.Second)) {
			t.Errorf("blocked record at %s: next_checkpoint_expected %v, want three intervals later", cp.UpdatedAt, next)
			continue
		}
		for _, at := range requests {
			if at.After(cp.UpdatedAt) {
				if at.Before(next.Add(-50*time.Millisecond)) || at.After(next.Add(time.Second)) {
					t.Errorf("blocked record at %s expects the next request at %s; it came at %s", cp.UpdatedAt, next, at)
				}
				checked++
				break
			}
		}
	}
	if checked == 0 {
		t.Errorf("no request came after a blocked record (run longer?): records %d, requests %v", len(blocked), requests)
	}
	for _, want := range []string{"blocked 1, waiting 0", "   Blocked:\n   - T1 (w1): waiting for the API key\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the periodic dashboard lacks %q:\n%s", want, stdout)
		}
	}
}

// The handoff of a worktree team is what a person acts on in the morning:
// the team with each agent's role (the lead marked) and the task it held;
// the review with each task's status, verify result, branch (and how far
// ahead of base), its last commit and attempts; which completed task waits
// for a review and merge.
func TestHandoffReviewOfAWorktreeTeam(t *testing.T) {
	defer proctest.AssertNone(t)
	repo, git := gitRepo(t)
	cfg := writeTeam(t, fastTimers+`workspace = "worktree"
after_team_checkpoint = "exit"
[[task]]
id = "T1"
prompt = "One."
agent = "w1"
verify = ["true"]
estimate = "2h"
[[task]]
id = "T2"
prompt = "Two."
agent = "w2"
`, fakeAgent{name: "w1", mode: "worker:steps=1:write=one.txt", dir: repo, lead: true},
		fakeAgent{name: "w2", mode: "worker:steps=1000:write=two.txt", dir: repo})
	cfg.StateDir = filepath.Join(repo, ".warden")
	cfg.SignalFile = filepath.Join(cfg.StateDir, "checkpoint-needed")
	team, out, wait := startTeamCfg(t, cfg)
	waitFor(t, "T1 complete and T2 checkpointed", func() bool {
		s := out.String()
		return strings.Contains(s, "TASK COMPLETE: T1") && strings.Contains(s, "CHECKPOINT: T2 - implementing")
	})
	os.WriteFile(team.cfg.SignalFile, nil, 0o600)
	if res := wait(); res.ExitCode() != 1 && res.ExitCode() != 0 {
		t.Logf("exit %d", res.ExitCode())
	}
	md, err := os.ReadFile(filepath.Join(cfg.StateDir, "handoff.md"))
	if err != nil {
		t.Fatalf("no handoff: %v\n%s", err, out.String())
	}
	name := cfg.Name
	tip := func(task string) string { return git("rev-parse", "warden/"+name+"/"+task)[:12] }
	for _, want := range []string{
		"| w1 | plain | **lead** | T1 | ", "| w2 | plain | worker | T2 | ",
		"## Review\n\n| Task | Status | Verify | Branch | Last commit | Attempts |\n|---|---|---|---|---|---|\n",
		"| T1 | complete | passed | warden/" + name + "/T1 (1 ahead of main) | " + tip("T1") + " | 1 |",
		"| T2 | in_progress | - | warden/" + name + "/T2 (",
		" ahead of main) | " + tip("T2") + " | 1 |",
		"Complete, waiting for your review and merge: T1 (warden/" + name + "/T1 into main).",
		" / est. 2h | - |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("handoff.md lacks %q:\n%s", want, md)
		}
	}
}
