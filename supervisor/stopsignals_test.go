//go:build !e2e

package supervisor

import (
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
)

// One Ctrl-C under `timeout` reaches warden two or three times within
// milliseconds: the signals within SignalWindow (1 s) of the first are
// that one stop again; a signal after it is a second request and forces
// the stop (issue 31).
func TestStopSignalsWithinASecondAreOneStop(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC))
	s := NewStopSignals(clk)
	step := func(d time.Duration, want StopRequest) {
		t.Helper()
		clk.Advance(d)
		if got := s.Take(); got != want {
			t.Errorf("a signal %v after the previous one: %d, want %d", d, got, want)
		}
	}
	step(0, StopClean)                   // the terminal's SIGINT
	step(2*time.Millisecond, StopSame)   // timeout's copy to warden
	step(time.Millisecond, StopSame)     // and to its group
	step(997*time.Millisecond, StopSame) // a second after the first, to the nanosecond: still the same
	step(time.Millisecond, StopForce)    // a person pressing Ctrl-C again
	step(5*time.Second, StopForce)       // and again
	if SignalWindow != time.Second {
		t.Errorf("SignalWindow %v: docs/lifecycle.md says 1 s", SignalWindow)
	}
}
