package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
)

func TestAnswerOnScreenAndThroughHookIsOneRecord(t *testing.T) {
	defer proctest.AssertNone(t)
	team, out, wait := startTeam(t, `checkpoint_interval = "200ms"
checkpoint_timeout = "2s"
shutdown_timeout = "1s"
[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "h", mode: "hooked"})
	waitFor(t, "three answers", func() bool { return strings.Count(out.String(), "CHECKPOINT: T1") >= 3 })
	team.Force()
	wait()
	evs := eventsOf(t, team.cfg)
	requests := countEvents(evs, event.CheckpointRequested, "h")
	records := countEvents(evs, event.CheckpointReceived, "h")
	if records < 3 || records > requests {
		t.Fatalf("%d requests, %d records: an answer seen on the screen and through the hook must be one record", requests, records)
	}
}

func TestContextGaugeTriggersTeamCheckpoint(t *testing.T) {
	defer proctest.AssertNone(t)
	team, out, wait := startTeam(t, `checkpoint_interval = "200ms"
checkpoint_timeout = "2s"
shutdown_timeout = "1s"
context_threshold = 80
[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "h", mode: "hooked:pct=85"})
	waitFor(t, "rehydration", func() bool { return countEvents(eventsOf(t, team.cfg), event.TeamRehydrated, "") == 1 })
	team.Force()
	wait()
	evs := eventsOf(t, team.cfg)
	// One team checkpoint a generation: the gauge of the first generation
	// fires once, however often it is reported (the fake agent of the second
	// generation reports 85 % again, and may fire before Force).
	var firstGen []map[string]any
	for _, e := range evs {
		if e["event"] == event.TeamRehydrated {
			break
		}
		firstGen = append(firstGen, e)
	}
	if countEvents(firstGen, event.ContextThreshold, "h") != 1 || countEvents(firstGen, event.CheckpointComplete, "") != 1 {
		t.Fatalf("events: %v", evs)
	}
	if !strings.Contains(out.String(), "WARNING: h's context is 85% full") || !strings.Contains(out.String(), "\nCHECKPOINT COMPLETE\n") {
		t.Errorf("stdout:\n%s", out.String())
	}
	// Started by the signal file the gauge wrote, and saying so truthfully.
	if e := firstEvent(evs, event.TeamCheckpointStarted); e == nil || e["cause"] != "context_threshold" ||
		e["reason"] != "the context of h is 85% full (context_threshold 80%)" {
		t.Errorf("team_checkpoint_started %v", e)
	}
	kept, _ := filepath.Glob(filepath.Join(team.cfg.StateDir, "handoffs", "*.md")) // the first is the gauge's
	if len(kept) == 0 {
		t.Fatal("no handoff kept")
	}
	md, _ := os.ReadFile(kept[0])
	if !strings.Contains(string(md), "- Cause: an agent's context passed context_threshold") {
		t.Errorf("handoff.md does not say why:\n%s", md)
	}
}

func TestStructuredUsageLimitPausesThenContinues(t *testing.T) {
	defer proctest.AssertNone(t)
	team, out, wait := startTeamWith(t, writeTeam(t, `checkpoint_interval = "100ms"
checkpoint_timeout = "2s"
stale_warning = "500ms"
stale_failure = "1s"
shutdown_timeout = "1s"
[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "h", mode: "hooked:limit=2"}), func(team *Team) { team.deps.Timers.UsageLimitMargin = 0 })
	waitFor(t, "the pause", func() bool { return countEvents(eventsOf(t, team.cfg), event.UsageLimitWait, "h") == 1 })
	snap, _ := state.ReadSnapshot(team.cfg.StateDir)
	if snap == nil || snap.Agents[0].PausedUntil.IsZero() {
		t.Errorf("state.json does not show the pause: %+v", snap)
	}
	waitFor(t, "the agent told to continue", func() bool {
		log, _ := os.ReadFile(team.dir.AgentLog("h"))
		return strings.Contains(string(log), "CONTINUED")
	})
	team.Force()
	wait()
	evs := eventsOf(t, team.cfg)
	// Silent for 2s while paused, with stale_failure 1s: no alarm, no restart.
	if countEvents(evs, event.AgentStalled, "h") != 0 || countEvents(evs, event.AgentStarted, "h") != 1 {
		t.Errorf("the paused agent was treated as stale: %v", evs)
	}
	if !strings.Contains(out.String(), "WARNING: h hit a usage limit; waiting until") {
		t.Errorf("stdout:\n%s", out.String())
	}
}
