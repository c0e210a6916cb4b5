package session

import (
	"testing"
	"time"
)

func testMonitor(start time.Time) *monitor {
	return &monitor{interval: 5 * time.Minute, timeout: 30 * time.Second, staleWarn: 10 * time.Minute,
		staleFail: 30 * time.Minute, turnQuiet: time.Second, start: start, nextRequest: start.Add(5 * time.Minute)}
}

func TestMonitorRequestsAtTurnBoundaryAfterInterval(t *testing.T) {
	t0 := time.Unix(1000, 0)
	m := testMonitor(t0)
	out := t0.Add(4*time.Minute + 59*time.Second + 500*time.Millisecond) // busy right before the interval
	if act, wake := m.next(t0.Add(5*time.Minute), out); act != actNone || !wake.Equal(out.Add(time.Second)) {
		t.Fatalf("asked while output flowed: %v, wake %v", act, wake)
	}
	if act, _ := m.next(out.Add(time.Second), out); act != actRequest {
		t.Fatalf("no request at the turn boundary: %v", act)
	}
	// Answer late: a timeout, then the next request an interval later.
	now := out.Add(31 * time.Second)
	if act, _ := m.next(now, out); act != actTimeout {
		t.Fatalf("late answer not reported: %v", act)
	}
	if act, wake := m.next(now, out); act != actNone || !wake.Equal(now.Add(5*time.Minute)) {
		t.Fatalf("after a timeout: %v next %v", act, wake)
	}
}

func TestMonitorCheckpointResetsTimer(t *testing.T) {
	t0 := time.Unix(1000, 0)
	m := testMonitor(t0)
	m.checkpoint(t0.Add(4 * time.Minute)) // an unasked checkpoint
	if act, wake := m.next(t0.Add(5*time.Minute), t0); act != actNone || !wake.Equal(t0.Add(9*time.Minute)) {
		t.Fatalf("request not moved by the checkpoint: %v %v", act, wake)
	}
}

func TestMonitorStaleThenStalled(t *testing.T) {
	t0 := time.Unix(1000, 0)
	m := testMonitor(t0)
	m.interval, m.nextRequest = time.Hour, t0.Add(time.Hour)
	if act, _ := m.next(t0.Add(10*time.Minute), t0); act != actStale {
		t.Fatalf("silent 10m: %v, want stale", act)
	}
	if act, wake := m.next(t0.Add(10*time.Minute), t0); act != actNone || !wake.Equal(t0.Add(30*time.Minute)) {
		t.Fatalf("stale warned twice or wrong wake: %v %v", act, wake)
	}
	// Output resumes: no longer stale; silence again warns again.
	out := t0.Add(20 * time.Minute)
	if act, _ := m.next(t0.Add(21*time.Minute), out); act != actNone {
		t.Fatalf("active agent: %v", act)
	}
	if act, _ := m.next(out.Add(10*time.Minute), out); act != actStale {
		t.Fatalf("second silence: %v", act)
	}
	if act, _ := m.next(out.Add(30*time.Minute), out); act != actStalled {
		t.Fatalf("silent 30m: %v, want stalled", act)
	}
}

func TestMonitorUsageLimitPauseSilencesAlarms(t *testing.T) {
	t0 := time.Unix(1000, 0)
	m := testMonitor(t0)
	m.pause(t0.Add(3 * time.Hour))
	// Hours of silence while paused: no request, no stale, no stalled.
	if act, wake := m.next(t0.Add(2*time.Hour), t0); act != actNone || !wake.Equal(t0.Add(3*time.Hour)) {
		t.Fatalf("paused: %v, wake %v", act, wake)
	}
	now := t0.Add(3 * time.Hour)
	if act, _ := m.next(now, t0); act != actResume {
		t.Fatalf("at the reset time: %v, want resume", act)
	}
	// After the pause the clocks start again from the resume.
	if act, wake := m.next(now.Add(time.Minute), t0); act != actNone || !wake.Equal(now.Add(5*time.Minute)) {
		t.Fatalf("after resume: %v, wake %v", act, wake)
	}
}
