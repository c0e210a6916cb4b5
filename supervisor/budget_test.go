//go:build e2e

package supervisor

import (
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
)

const budgetTask = `
[[task]]
id = "T1"
prompt = "Work for ever."
`

// max_runtime ends the run: a team checkpoint (handoff, CHECKPOINT
// COMPLETE), then exit — not a rehydration — with the task still open.
func TestMaxRuntimeEndsTheRunWithATeamCheckpoint(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `max_runtime = "1s"
checkpoint_interval = "200ms"
shutdown_timeout = "1s"`+budgetTask, fakeAgent{name: "w", mode: "answer"})
	start := time.Now()
	res, stdout, _ := runTeam(t, cfg, 20*time.Second)
	if took := time.Since(start); took > 6*time.Second {
		t.Errorf("the run took %s with max_runtime 1s", took)
	}
	if res.Stopped || res.ExitCode() != 1 || res.Tasks[0].State == queue.Complete {
		t.Errorf("result %+v", res)
	}
	evs := eventsOf(t, cfg)
	e := firstEvent(evs, event.TeamCheckpointStarted)
	if e == nil || e["reason"] != "max_runtime 1s reached" || countEvents(evs, event.TeamRehydrated, "") != 0 {
		t.Errorf("events: %v", evs)
	}
	if !strings.Contains(stdout, "\nCHECKPOINT COMPLETE\n") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

// max_attempts counts sessions (restarts included): past it the task fails
// with the reason and its agent is free.
func TestMaxAttemptsFailsTheTask(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `shutdown_timeout = "1s"`+budgetTask+`max_attempts = 2
`, fakeAgent{name: "w", mode: "crash:10ms:2", restart: "on-failure", maxRestarts: 10})
	res, stdout, _ := runTeam(t, cfg, 20*time.Second)
	if res.Tasks[0].State != queue.Failed || res.Tasks[0].Reason != "max_attempts 2 reached" {
		t.Fatalf("tasks %+v", res.Tasks)
	}
	if n := countEvents(eventsOf(t, cfg), event.AgentStarted, "w"); n != 2 {
		t.Errorf("%d sessions, want 2", n)
	}
	if !strings.Contains(stdout, "TASK FAILED: T1 (max_attempts 2 reached)") || res.ExitCode() != 1 {
		t.Errorf("exit %d, stdout:\n%s", res.ExitCode(), stdout)
	}
}

// max_time is wall time worked: a session still at work when it runs out is
// stopped and the task fails.
func TestMaxTimeStopsAndFailsTheTask(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `shutdown_timeout = "1s"`+budgetTask+`max_time = "1s"
`, fakeAgent{name: "w", mode: "answer"})
	start := time.Now()
	res, stdout, _ := runTeam(t, cfg, 20*time.Second)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s with max_time 1s", took)
	}
	if res.Tasks[0].State != queue.Failed || res.Tasks[0].Reason != "max_time 1s reached" {
		t.Fatalf("tasks %+v\n%s", res.Tasks, stdout)
	}
}
