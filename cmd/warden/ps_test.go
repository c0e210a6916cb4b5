//go:build !e2e

package main

import (
	"bytes"
	"regexp"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/state"
)

// Every duration ps shows reads as the time it is: the ones that end in a
// zero too (50 s showed as "5", 10 min as "1").
func TestSpanSaysTheTime(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{-3 * time.Second, "0s"}, {0, "0s"}, {900 * time.Millisecond, "0s"}, {9 * time.Second, "9s"},
		{10 * time.Second, "10s"}, {20 * time.Second, "20s"}, {50 * time.Second, "50s"},
		{59*time.Second + 999*time.Millisecond, "59s"}, {time.Minute, "1m"}, {90 * time.Second, "1m"},
		{10 * time.Minute, "10m"}, {59*time.Minute + 59*time.Second, "59m"}, {time.Hour, "1h"},
		{time.Hour + 30*time.Second, "1h"}, {time.Hour + 10*time.Minute, "1h10m"}, {2*time.Hour + 5*time.Minute, "2h5m"},
		{25 * time.Hour, "25h"}, {100*time.Hour + 20*time.Minute + 50*time.Second, "100h20m"},
	} {
		if got := span(c.d); got != c.want {
			t.Errorf("span(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// ps's tables with ages that end in zeros: the uptime, the last
// checkpoint, the next request and the one asked for.
func TestPSShowsAgesThatEndInZero(t *testing.T) {
	now := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	ps := &control.PS{Team: "ops", Pid: 42, StartedAt: now.Add(-10 * time.Minute), Now: now, Agents: []control.Agent{
		{AgentStatus: state.AgentStatus{Name: "w1", State: state.Running, Task: "T1", Attempt: 1, Pid: 7, LastCheckpoint: now.Add(-20 * time.Second)},
			SessionStarted: now.Add(-50 * time.Second), NextRequest: now.Add(30 * time.Second)},
		{AgentStatus: state.AgentStatus{Name: "w2", State: state.Running, Task: "T2", Attempt: 2, Pid: 8, LastCheckpoint: now.Add(-40 * time.Minute)},
			SessionStarted: now.Add(-time.Hour - 30*time.Second), RequestedAt: now.Add(-10 * time.Second)},
	}}
	var b bytes.Buffer
	renderPS(&b, ps)
	out := b.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`up 10m\n`),
		regexp.MustCompile(`(?m)^w1 +running +T1 +1 +7 +50s +20s ago +in 30s$`),
		regexp.MustCompile(`(?m)^w2 +running +T2 +2 +8 +1h +40m ago +asked 10s ago$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("warden ps does not match %s:\n%s", want, out)
		}
	}
}
