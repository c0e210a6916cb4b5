//go:build !e2e

package session

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
)

// Output that never pauses for the settle time (OpenCode's animated retry
// line at a usage limit) is still read: with a max, the settler fires once
// the output has gone on for max; without one it waits for a pause, as
// before.
func TestSettlerReadsAScreenThatNeverGoesQuiet(t *testing.T) {
	for _, c := range []struct {
		max   time.Duration
		fires int32
	}{{0, 0}, {2 * time.Second, 2}} {
		clk := clock.NewFake(time.Unix(1_700_000_000, 0))
		var n atomic.Int32
		st := newSettler(300*time.Millisecond, c.max, clk, func() { n.Add(1) })
		for range 50 { // 5 s of a frame every 100 ms
			st.poke()
			clk.Advance(100 * time.Millisecond)
		}
		if got := n.Load(); got != c.fires {
			t.Errorf("max %s: fired %d times in 5 s of output, want %d", c.max, got, c.fires)
		}
		clk.Advance(time.Second) // quiet now: it settles
		if got := n.Load(); got != c.fires+1 {
			t.Errorf("max %s: fired %d times after a second of quiet, want %d", c.max, got, c.fires+1)
		}
		st.stop()
	}
}
