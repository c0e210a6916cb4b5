// Package teamtest holds what the supervisor's tests and its real-CLI tests
// (supervisor/realclis, a package of its own so that its slow runs go beside
// the rest rather than after it) both use: team files of fake agents, the
// state dir's events and snapshot read back, waits, warden's stdout.
package teamtest

import (
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
)

// EventsOf returns the events of a team's state dir.
func EventsOf(t testing.TB, cfg *config.Team) []map[string]any {
	t.Helper()
	return ReadEvents(t, cfg.StateDir)
}

// ReadEvents returns the events of the state dir at root.
func ReadEvents(t testing.TB, root string) []map[string]any {
	t.Helper()
	evs, err := state.ReadEvents(state.NewLayout(root).Events())
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// ReadSnapshot reads state.json of the state dir at root.
func ReadSnapshot(t testing.TB, root string) *state.Snapshot {
	t.Helper()
	s, err := state.ReadSnapshot(root)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// EventTime is an event's ts (the test fails on an event that is missing).
func EventTime(t testing.TB, e map[string]any) time.Time {
	t.Helper()
	if e == nil {
		t.Fatal("no such event")
	}
	at, err := time.Parse(time.RFC3339Nano, e["ts"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// CountEvents counts the events named name (of agent, when not "").
func CountEvents(evs []map[string]any, name, agent string) int {
	n := 0
	for _, e := range evs {
		if e["event"] == name && (agent == "" || e["agent"] == agent) {
			n++
		}
	}
	return n
}

// EventsBetween counts the events named name of agent from from to to.
func EventsBetween(t testing.TB, evs []map[string]any, name, agent string, from, to time.Time) int {
	n := 0
	for _, e := range evs {
		if e["event"] == name && (agent == "" || e["agent"] == agent) {
			if at := EventTime(t, e); !at.Before(from) && !at.After(to) {
				n++
			}
		}
	}
	return n
}

// FirstEvent returns the first event of that name, or nil.
func FirstEvent(evs []map[string]any, name string) map[string]any {
	for _, e := range evs {
		if e["event"] == name {
			return e
		}
	}
	return nil
}

// WhileWaiting returns agent's events from its first agent_waiting up to
// its agent_resumed, or to the end.
func WhileWaiting(evs []map[string]any, agent string) []map[string]any {
	var out []map[string]any
	in := false
	for _, e := range evs {
		if e["agent"] != agent {
			continue
		}
		switch {
		case e["event"] == event.AgentWaiting:
			in = true
		case e["event"] == event.AgentResumed && in:
			return out
		case in:
			out = append(out, e)
		}
	}
	return out
}

// MostAtOnce is the most sessions running at once, as events.jsonl tells
// it: agent_started counts one in, agent_exited one out.
func MostAtOnce(evs []map[string]any) int {
	n, most := 0, 0
	for _, e := range evs {
		switch e["event"] {
		case event.AgentStarted:
			n++
			most = max(most, n)
		case event.AgentExited:
			n--
		}
	}
	return most
}

// AnyStrings is a JSON array of strings read back ([]any) as []string.
func AnyStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, len(l))
	for i, s := range l {
		out[i], _ = s.(string)
	}
	return out
}
