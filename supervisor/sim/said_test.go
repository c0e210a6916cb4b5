//go:build !e2e

package sim

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestACrashAfterItsFirstSecondsIsSaid: an agent whose session crashes 20 s
// after it started (past the quick exit's 5 s, which has its WARNING line)
// gets one line on warden's terminal per exit, as supervisord and overmind
// print one: who, its task, the exit, how long it ran, which restart of how
// many, and when. Before, only the footer's restart count changed. Each
// agent_restarted says why (its notification said nothing).
func TestACrashAfterItsFirstSecondsIsSaid(t *testing.T) {
	spec := Spec{Seed: 3, Rehydrate: true, Night: 70 * time.Second,
		Timers: Timers{Interval: 5 * time.Minute, Timeout: 10 * time.Second, Shutdown: 3 * time.Second,
			StaleWarning: 10 * time.Minute, StaleFailure: 30 * time.Minute},
		Agents: []AgentSpec{{Name: "a", Restart: "on-failure", MaxRestarts: 3, Persona: Persona{CrashAfter: 20 * time.Second}}},
		Tasks:  []TaskSpec{{ID: "T1"}},
	}
	w := CheckSpec(t, spec)
	out := w.out.String()
	line := regexp.MustCompile(`(?m)^CRASHED: a \(T1\) exit code 3 after (\S+); restart (\d) of 3 in (\S+)  \[a [^]]*\]$`)
	got := line.FindAllStringSubmatch(out, -1)
	if len(got) < 2 {
		t.Fatalf("%d CRASHED lines, want one per crash (at least 2 in 70 s):\n%s", len(got), out)
	}
	for i, m := range got {
		if m[1] != "20s" || m[2] != string(rune('1'+i)) {
			t.Errorf("line %d: %q, want after 20s, restart %d of 3", i+1, m[0], i+1)
		}
		if d, err := time.ParseDuration(m[3]); err != nil || d <= 0 || d > time.Minute {
			t.Errorf("line %d: backoff %q", i+1, m[3])
		}
	}
	if n := countEvents(w.eventsNow(), "agent_restarted"); n != len(got) {
		t.Errorf("%d agent_restarted, %d CRASHED lines: want one line per restart", n, len(got))
	}
	for _, e := range w.eventsNow() {
		// Its reason, which the notification says.
		if e.Name() == "agent_restarted" && e.Str("reason") != "exited with code 3" {
			t.Errorf("agent_restarted %v: reason %q, want exited with code 3", e, e.Str("reason"))
		}
	}
	if strings.Contains(out, "after it started") {
		t.Errorf("a crash after 20 s is said as a quick exit:\n%s", out)
	}
}
