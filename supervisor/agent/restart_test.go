//go:build !e2e

package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor/config"
)

func TestRestartStormEndsInFailed(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p := NewRestartPolicy(config.RestartOnFailure, 5, clk)
	p.Jitter = 0 // exact delays; jitter has a test of its own
	var delays []time.Duration
	for i := 0; i < 10; i++ {
		p.Started()
		clk.Advance(100 * time.Millisecond) // crashes at once, every time
		d := p.Exited(false, false)
		if d.Failed {
			if i != 5 {
				t.Fatalf("failed after %d restarts, want after 5", i)
			}
			if !strings.Contains(d.Reason, "restart limit") {
				t.Fatalf("reason %q does not say why", d.Reason)
			}
			want := []time.Duration{1, 2, 4, 8, 16}
			for j, w := range want {
				if delays[j] != w*time.Second {
					t.Fatalf("backoff %d = %s, want %s (all: %v)", j, delays[j], w*time.Second, delays)
				}
			}
			return
		}
		if !d.Restart {
			t.Fatalf("exit %d: neither restart nor failed: %+v", i, d)
		}
		delays = append(delays, d.Delay)
		clk.Advance(d.Delay)
	}
	t.Fatal("a crash loop never ended in failed")
}

func TestBackoffCappedAndResetAfterStableRun(t *testing.T) {
	clk := clock.NewFake(time.Unix(0, 0))
	p := NewRestartPolicy(config.RestartAlways, 1000, clk)
	p.Jitter = 0
	var last time.Duration
	for i := 0; i < 12; i++ {
		p.Started()
		d := p.Exited(false, false)
		last = d.Delay
	}
	if last != time.Minute {
		t.Fatalf("backoff after 12 quick crashes = %s, want the 1m cap", last)
	}
	p.Started()
	clk.Advance(31 * time.Second) // a stable run
	if d := p.Exited(false, false); d.Delay != time.Second {
		t.Fatalf("backoff after a stable run = %s, want reset to 1s", d.Delay)
	}
}

func TestBurstWindowForgetsOldRestarts(t *testing.T) {
	clk := clock.NewFake(time.Unix(0, 0))
	p := NewRestartPolicy(config.RestartOnFailure, 2, clk)
	for i := 0; i < 6; i++ {
		p.Started()
		clk.Advance(6 * time.Minute) // one crash every 6 minutes: never 3 in 10 minutes
		if d := p.Exited(false, false); !d.Restart {
			t.Fatalf("crash %d: %+v, want a restart (only 2 within any 10m)", i, d)
		}
	}
}

func TestRestartModes(t *testing.T) {
	clk := clock.NewFake(time.Unix(0, 0))
	cases := []struct {
		mode              string
		success, stopping bool
		restart, failed   bool
	}{
		{config.RestartNever, true, false, false, false},
		{config.RestartNever, false, false, false, true},
		{config.RestartOnFailure, true, false, false, false},
		{config.RestartOnFailure, false, false, true, false},
		{config.RestartAlways, true, false, true, false},
		{config.RestartAlways, false, true, false, false}, // nothing restarts while stopping
		{config.RestartOnFailure, false, true, false, false},
	}
	for _, c := range cases {
		p := NewRestartPolicy(c.mode, 5, clk)
		p.Started()
		d := p.Exited(c.success, c.stopping)
		if d.Restart != c.restart || d.Failed != c.failed {
			t.Errorf("%s success=%v stopping=%v: got %+v", c.mode, c.success, c.stopping, d)
		}
	}
}

func TestMaxRestartsZeroNeverRestarts(t *testing.T) {
	p := NewRestartPolicy(config.RestartAlways, 0, clock.NewFake(time.Unix(0, 0)))
	p.Started()
	if d := p.Exited(false, false); d.Restart || !d.Failed {
		t.Fatalf("max_restarts = 0: %+v, want failed without restart", d)
	}
}

// Ten agents that crash together do not restart in lockstep: each delay is
// within ±20 % of the backoff, and they differ.
func TestJitterSpreadsRestarts(t *testing.T) {
	clk := clock.NewFake(time.Unix(0, 0))
	seen := map[time.Duration]bool{}
	for i := 0; i < 10; i++ {
		p := NewRestartPolicy(config.RestartAlways, 5, clk)
		p.Started()
		d := p.Exited(false, false)
		if d.Delay < 800*time.Millisecond || d.Delay > 1200*time.Millisecond {
			t.Fatalf("first delay %s outside 1s ±20%%", d.Delay)
		}
		seen[d.Delay] = true
	}
	if len(seen) < 5 {
		t.Fatalf("10 policies gave only %d distinct delays: %v", len(seen), seen)
	}
}

// Peek says what Exited would decide on a failure now, and changes
// nothing: restart = never, the burst limit reached (with Exited's
// reason), and a restart otherwise.
func TestRestartPolicyPeekSaysWhatAFailureWouldBring(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if ok, why := NewRestartPolicy(config.RestartNever, 5, clk).Peek(); ok || why != "restart = never" {
		t.Errorf("restart = never: Peek %v %q", ok, why)
	}
	p := NewRestartPolicy(config.RestartOnFailure, 2, clk)
	p.Jitter = 0
	for i := 0; i < 2; i++ {
		if ok, why := p.Peek(); !ok || why != "" {
			t.Fatalf("restart %d of 2: Peek %v %q, want a restart", i+1, ok, why)
		}
		p.Peek() // twice: it records nothing
		p.Started()
		if d := p.Exited(false, false); !d.Restart {
			t.Fatalf("exit %d: %+v", i+1, d)
		}
	}
	ok, why := p.Peek()
	if d := p.Exited(false, false); ok || !d.Failed || why != d.Reason {
		t.Errorf("at the limit: Peek %v %q, Exited %+v: want the same failure", ok, why, d)
	}
}
