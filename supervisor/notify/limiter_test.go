//go:build !e2e

package notify

import (
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	l := newLimiter()
	a := key{rule: 0, event: "agent_stalled", agent: "w1"}
	b := key{rule: 1, event: "agent_stalled", agent: "w1"} // another rule: its own interval
	steps := []struct {
		k          key
		at         time.Duration
		send       bool
		suppressed int
	}{
		{a, 0, true, 0},
		{b, 0, true, 0},
		{a, time.Minute, false, 0},
		{a, 9*time.Minute + 59*time.Second, false, 0},
		{a, 10 * time.Minute, true, 2},
		{a, 10 * time.Minute, false, 0},
		{b, 25 * time.Minute, true, 0},
	}
	for i, s := range steps {
		send, n := l.take(s.k, 10*time.Minute, t0.Add(s.at))
		if send != s.send || n != s.suppressed {
			t.Errorf("step %d: take = %v, %d; want %v, %d", i, send, n, s.send, s.suppressed)
		}
	}
	l.hold(a) // dropped from a full queue: carried by the next one
	if send, n := l.take(a, 10*time.Minute, t0.Add(20*time.Minute)); !send || n != 2 {
		t.Errorf("after hold: take = %v, %d; want true, 2", send, n)
	}
	if send, n := l.take(a, 0, t0.Add(20*time.Minute)); !send || n != 0 {
		t.Errorf("interval 0: take = %v, %d; want true, 0", send, n)
	}
}
