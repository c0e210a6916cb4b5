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

// Every session of an agent is recorded in logs/{agent}-{session}.cast, and
// an agent keeps the recordings of its log_keep + 1 newest sessions, as it
// keeps log_keep + 1 terminal logs.
func TestRecordingsRotateWithLogKeep(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `log_keep = 2`, fakeAgent{name: "w", mode: "crash:10ms:2", restart: "on-failure", maxRestarts: 4})
	clk := clock.NewFake(time.Now())
	team, err := New(testLogger(t), cfg, clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	runSkippingBackoff(team, clk, nil)

	var sessions []string
	for _, e := range eventsOf(t, cfg) {
		if e["event"] == event.AgentStarted && e["agent"] == "w" {
			sessions = append(sessions, e["session_id"].(string))
		}
	}
	if len(sessions) != 5 {
		t.Fatalf("%d sessions, want 5 (the first and 4 restarts)", len(sessions))
	}
	casts, err := state.NewLayout(cfg.StateDir).AgentCasts("w")
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, c := range casts {
		kept = append(kept, c.Session)
		b, _ := os.ReadFile(c.Path)
		if !strings.Contains(string(b), `running\r\n`) || !strings.Contains(string(b), `crashing\r\n`) {
			t.Errorf("%s lacks the session's output:\n%s", c.Path, b)
		}
		if c.Header.Width != 200 || c.Header.Height != 50 || !strings.Contains(c.Header.Title, c.Session) {
			t.Errorf("%s: header %+v", c.Path, c.Header)
		}
	}
	if want := sessions[2:]; strings.Join(kept, " ") != strings.Join(want, " ") {
		t.Errorf("recordings kept %v, want the newest log_keep+1 = 3: %v", kept, want)
	}
}
