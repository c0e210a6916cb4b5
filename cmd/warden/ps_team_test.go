//go:build e2e

package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/control"
)

// A real team ten seconds up: warden ps says "up 10s" (it said "up 1").
func TestPSUptimeOfARealTeam(t *testing.T) {
	defer proctest.AssertNone(t)
	team := opsTeam(t, "", opsAgent{name: "w1", mode: "idle"})
	cmd, _ := runWarden(t, "run", team)
	defer stopRun(cmd)
	waitEvents(t, team, "agent_started", "w1", 1)
	ps, err := control.NewClient(stateOf(team)).PS()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(ps.StartedAt.Add(10*time.Second + 200*time.Millisecond)))
	human, errOut, code := wardenCmd("ps", team)
	if code != 0 {
		t.Fatalf("warden ps: exit %d\n%s", code, errOut)
	}
	first, _, _ := strings.Cut(human, "\n")
	if !regexp.MustCompile(`, up 1[01]s$`).MatchString(first) {
		t.Errorf("warden ps ten seconds after the start says %q, want up 10s", first)
	}
	if !regexp.MustCompile(`(?m)^w1 +running +- +1 +\d+ +(9|10|11)s +- +`).MatchString(human) {
		t.Errorf("w1's uptime is not about ten seconds:\n%s", human)
	}
}
