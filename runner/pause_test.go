//go:build e2e

package runner

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A paused reader reads nothing more: what the agent writes meanwhile
// waits in its terminal, and comes, nothing lost, once the reader is
// resumed (what `warden upgrade` relies on: the holder reads it instead).
// A Process that is paused twice, or resumed unpaused, is fine. (Ticks
// every 10 ms are never quiet for pauseQuiet: it parks at pauseMax.)
func TestPausedReaderReadsNothingUntilResumed(t *testing.T) {
	p, c := start(t, fakeConfig("worker:steps=1:tick=10ms"))
	c.waitUntil(t, "two ticks", func(out []byte) bool { return strings.Count(string(out), "TICK ") >= 2 })
	p.Resume() // not paused: nothing
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for range 2 {
		if err := p.Pause(ctx); err != nil {
			t.Fatalf("Pause: %v", err)
		}
	}
	paused := strings.Count(c.String(), "TICK ")
	time.Sleep(300 * time.Millisecond)
	if n := strings.Count(c.String(), "TICK "); n != paused {
		t.Fatalf("%d ticks read while paused (before: %d)", n-paused, paused)
	}
	p.Resume()
	// The ~30 ticks written while paused come at once, in order.
	c.waitUntil(t, "the ticks written while paused", func(out []byte) bool { return strings.Count(string(out), "TICK ") >= paused+20 })
	var last string
	for _, l := range strings.Split(c.String(), "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(l), "TICK "); ok {
			if len(s) == len(last) && s <= last {
				t.Fatalf("tick %s after %s: out of order", s, last)
			}
			last = s
		}
	}
	select {
	case <-p.Done():
		t.Fatalf("the process ended: %v", p.Exit())
	default:
	}
}
