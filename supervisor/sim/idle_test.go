//go:build !e2e

package sim

import (
	"strings"
	"testing"
	"time"
)

// TestAnIdleAgentIsNudgedThenSaidIdle is issue 34's agent that stopped
// working: s answers every request with the same block (40 %, the same
// Completed item) and sits at its prompt between them. With idle_after 1m
// and idle_nudges 2 it is nudged twice, a minute apart, then agent_idle
// once, and never more in a night of 8 minutes; m, whose progress moves at
// every answer, is never nudged. Each nudge is typed to s: the line it
// read.
func TestAnIdleAgentIsNudgedThenSaidIdle(t *testing.T) {
	spec := Spec{Seed: 7, Rehydrate: true, Night: 8 * time.Minute,
		Timers: Timers{Interval: 10 * time.Second, Timeout: 5 * time.Second, Shutdown: 3 * time.Second,
			StaleWarning: 10 * time.Minute, StaleFailure: 30 * time.Minute, IdleAfter: time.Minute, IdleNudges: 2},
		Agents: []AgentSpec{
			{Name: "s", Restart: "on-failure", MaxRestarts: 5,
				Persona: Persona{AnswerMin: time.Second, AnswerMax: 2 * time.Second, Same: true}},
			{Name: "m", Restart: "on-failure", MaxRestarts: 5,
				Persona: Persona{AnswerMin: time.Second, AnswerMax: 2 * time.Second}},
		},
		Tasks: []TaskSpec{{ID: "T1", Agent: "s"}, {ID: "T2", Agent: "m"}},
	}
	w := CheckSpec(t, spec)
	nudged, idle := map[string][]Event{}, map[string][]Event{}
	for _, e := range w.eventsNow() {
		switch e.Name() {
		case "agent_nudged":
			nudged[e.Agent()] = append(nudged[e.Agent()], e)
		case "agent_idle":
			idle[e.Agent()] = append(idle[e.Agent()], e)
		}
	}
	if len(nudged["s"]) != 2 || len(idle["s"]) != 1 {
		t.Fatalf("s: %d agent_nudged, %d agent_idle; want 2, 1", len(nudged["s"]), len(idle["s"]))
	}
	if len(nudged["m"])+len(idle["m"]) > 0 {
		t.Errorf("m, whose progress moves, was nudged: %v %v", nudged["m"], idle["m"])
	}
	first, second, told := nudged["s"][0].Time(), nudged["s"][1].Time(), idle["s"][0].Time()
	if d := second.Sub(first); d < time.Minute || d > time.Minute+10*time.Second {
		t.Errorf("the nudges %v apart, want idle_after (1m) and a turn boundary", d)
	}
	if d := told.Sub(second); d < time.Minute || d > time.Minute+10*time.Second {
		t.Errorf("agent_idle %v after the last nudge, want idle_after (1m)", d)
	}
	if e := idle["s"][0]; e.Str("progress") != "40" || !strings.Contains(e.Str("reason"), "after 2 nudges") {
		t.Errorf("agent_idle %v: want progress 40 and the nudges in its reason", e)
	}
	out := w.out.String()
	if n := strings.Count(out, "nudged ("); n != 2 || strings.Count(out, "WARNING: s is idle") != 1 {
		t.Errorf("stdout has %d nudge lines, want 2, and one idle line:\n%s", n, out)
	}
}

// idle_nudges is a task's, not each session's: an idle agent whose session
// crashes after its two nudges is not nudged again by the next session on
// the same task (an agent restarted all night was nudged twice a session:
// the field's "poked hundreds of times a night"); that session says
// agent_idle after idle_after, nothing typed.
func TestTheNudgesAreTheTasksAcrossSessions(t *testing.T) {
	spec := Spec{Seed: 11, Rehydrate: true, Night: 9 * time.Minute,
		Timers: Timers{Interval: 10 * time.Second, Timeout: 5 * time.Second, Shutdown: 3 * time.Second,
			StaleWarning: 10 * time.Minute, StaleFailure: 30 * time.Minute, IdleAfter: time.Minute, IdleNudges: 2},
		Agents: []AgentSpec{
			{Name: "s", Restart: "on-failure", MaxRestarts: 5,
				Persona: Persona{AnswerMin: time.Second, AnswerMax: 2 * time.Second, Same: true, CrashAfter: 2*time.Minute + 30*time.Second}},
		},
		Tasks: []TaskSpec{{ID: "T1", Agent: "s"}},
	}
	w := CheckSpec(t, spec)
	nudged, idle, sessions := 0, 0, 0
	for _, e := range w.eventsNow() {
		switch e.Name() {
		case "agent_nudged":
			nudged++
		case "agent_idle":
			idle++
		case "agent_started":
			sessions++
		}
	}
	if sessions < 2 {
		t.Fatalf("%d sessions: the night never restarted the agent", sessions)
	}
	if nudged != 2 || idle < 1 {
		t.Errorf("%d agent_nudged and %d agent_idle over %d sessions of T1, want 2 nudges in all and agent_idle", nudged, idle, sessions)
	}
}
