//go:build e2e

package supervisor

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
)

func TestTeamRunsToCompletion(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, "",
		fakeAgent{name: "quick", mode: "lines:3", restart: "never"},
		fakeAgent{name: "partial", mode: "partial:no newline at the end", restart: "never"})
	team, err := New(testLogger(t), cfg, clock.Real{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := runWithEdges(team)
	if res.ExitCode() != 0 {
		t.Fatalf("exit code %d: %+v", res.ExitCode(), res.Agents)
	}
	evs := eventsOf(t, cfg)
	for _, a := range []string{"quick", "partial"} {
		if countEvents(evs, event.AgentStarted, a) != 1 || countEvents(evs, event.AgentExited, a) != 1 {
			t.Errorf("%s: events %v", a, evs)
		}
	}
	log, _ := os.ReadFile(team.dir.AgentLog("partial"))
	if !strings.HasSuffix(string(log), "no newline at the end") {
		t.Errorf("partial line lost from the log: %q", log)
	}
	fi, err := os.Stat(cfg.StateDir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("state dir mode %v %v, want 0700", fi.Mode().Perm(), err)
	}
}

func TestCrashingAgentRestartsThenFails(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, "", fakeAgent{name: "crasher", mode: "exit:3", restart: "on-failure", maxRestarts: 2})
	clk := clock.NewFake(time.Now())
	team, err := New(testLogger(t), cfg, clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := runSkippingBackoff(team, clk, nil)
	if res.ExitCode() != 1 || res.Agents[0].State != state.Failed {
		t.Fatalf("result %+v, want the agent failed and exit code 1", res)
	}
	if !strings.Contains(res.Agents[0].Reason, "restart limit") {
		t.Errorf("reason %q does not say why", res.Agents[0].Reason)
	}
	evs := eventsOf(t, cfg)
	if n := countEvents(evs, event.AgentStarted, "crasher"); n != 3 {
		t.Errorf("%d starts, want 3 (first run + max_restarts 2)", n)
	}
	if countEvents(evs, event.AgentRestarted, "crasher") != 2 || countEvents(evs, event.AgentFailed, "crasher") != 1 {
		t.Errorf("events: %v", evs)
	}
	for _, e := range evs {
		if e["event"] == event.AgentExited && e["code"] != float64(3) {
			t.Errorf("exit not recorded with its code: %v", e)
		}
	}
}

// waitStarted waits until every agent of the team is running.
func waitStarted(t *testing.T, team *Team) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		running := 0
		for _, a := range team.agents {
			if s := a.Status(); s.State == state.Running {
				running++
			}
		}
		if running == len(team.agents) {
			time.Sleep(200 * time.Millisecond) // let the fake agents install their handlers
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("agents did not start")
}

func TestStopKillsStubbornAgentsAndEscapeesAtTheDeadline(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `shutdown_timeout = "1s"`,
		fakeAgent{name: "polite", mode: "idle"},
		fakeAgent{name: "stubborn", mode: "ignore"},
		fakeAgent{name: "family", mode: "grandchild:ignore:idle"},
		fakeAgent{name: "escaper", mode: "escape:ignore:exit"})
	team, err := New(testLogger(t), cfg, clock.Real{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Result)
	go func() { done <- runWithEdges(team) }()
	waitStarted(t, team)
	t0 := time.Now()
	team.Stop(true)
	res := <-done
	took := time.Since(t0)
	if took < time.Second || took > 3*time.Second {
		t.Errorf("stop took %s, want the 1s shutdown_timeout and not much more", took)
	}
	if res.ExitCode() != 130 {
		t.Errorf("exit code %d, want 130", res.ExitCode())
	}
	evs := eventsOf(t, cfg)
	if countEvents(evs, event.AgentForceTerminated, "stubborn") != 1 || countEvents(evs, event.AgentForceTerminated, "polite") != 0 {
		t.Errorf("force events wrong: %v", evs)
	}
}

func TestForceKillsAtOnce(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `shutdown_timeout = "60s"`, fakeAgent{name: "stubborn", mode: "ignore"})
	team, err := New(testLogger(t), cfg, clock.Real{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Result)
	go func() { done <- runWithEdges(team) }()
	waitStarted(t, team)
	team.Stop(true)
	time.Sleep(100 * time.Millisecond)
	t0 := time.Now()
	team.Force()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a forced stop did not end the team within 5s (shutdown_timeout is 60s)")
	}
	if took := time.Since(t0); took > 2*time.Second {
		t.Errorf("forced stop took %s", took)
	}
}

func TestSecondWardenOnTheSameTeamIsRefused(t *testing.T) {
	cfg := writeTeam(t, "", fakeAgent{name: "a", mode: "exit:0"})
	first, err := New(testLogger(t), cfg, clock.Real{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.close()
	if _, err := New(testLogger(t), cfg, clock.Real{}, nil); err == nil || !strings.Contains(err.Error(), "another warden") {
		t.Fatalf("second supervisor: %v, want a lock error", err)
	}
}
