//go:build e2e

package supervisor

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
)

// The restart policy through a real agent that crashes: the backoff doubles
// from 1 s (1, 2, 4, 8, 16 s, each ±20 %), a run that lasts 30 s resets it
// to 1 s, the next crash doubles it again, and the burst limit ends the
// agent in failed. Run 6 is held open while the team's clock moves 31 s.
func TestRestartBackoffThroughACrashingAgent(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hold-6"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := writeTeam(t, "", fakeAgent{name: "crasher", mode: "crashseq:" + dir, restart: "on-failure", maxRestarts: 7})
	clk := clock.NewFake(time.Now())
	team, err := New(testLogger(t), cfg, clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	released := false
	res := runSkippingBackoff(team, clk, func() {
		if !released && countEvents(eventsOf(t, cfg), event.AgentStarted, "crasher") == 6 {
			clk.Advance(31 * time.Second) // run 6 is stable
			os.WriteFile(filepath.Join(dir, "release-6"), nil, 0o600)
			released = true
		}
	})
	if res.Agents[0].State != state.Failed {
		t.Fatalf("result %+v, want the agent failed at its burst limit", res)
	}
	var delays []time.Duration
	for _, e := range eventsOf(t, cfg) {
		if e["event"] == event.AgentRestarted {
			d, err := time.ParseDuration(e["backoff"].(string))
			if err != nil {
				t.Fatal(err)
			}
			delays = append(delays, d)
		}
	}
	want := []time.Duration{1, 2, 4, 8, 16, 1, 2} // the 6th run lasted 31 s: reset
	if len(delays) != len(want) {
		t.Fatalf("restart delays %v, want about %v seconds", delays, want)
	}
	for i, w := range want {
		lo, hi := time.Duration(float64(w*time.Second)*0.8), time.Duration(float64(w*time.Second)*1.2)
		if delays[i] < lo || delays[i] > hi {
			t.Errorf("restart %d waited %s, want %s ±20%% (all: %v)", i+1, delays[i], w*time.Second, delays)
		}
	}
}
