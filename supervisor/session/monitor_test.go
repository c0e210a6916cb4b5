//go:build !e2e

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
	// Next: the next request an interval later — or, sooner, stale_warning
	// after the start, for no checkpoint has come yet.
	if act, wake := m.next(now, out); act != actNone || !wake.Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("after a timeout: %v next %v", act, wake)
	}
}

func TestMonitorCheckpointResetsTimer(t *testing.T) {
	t0 := time.Unix(1000, 0)
	m := testMonitor(t0)
	m.checkpoint(t0.Add(4*time.Minute), false) // an unasked checkpoint
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
	// A checkpoint: no longer stale; silence again warns again.
	out := t0.Add(20 * time.Minute)
	m.checkpoint(out, false)
	if act, _ := m.next(t0.Add(21*time.Minute), out); act != actNone {
		t.Fatalf("active agent: %v", act)
	}
	if act, _ := m.next(out.Add(10*time.Minute), out); act != actStale || m.staleWhy != "silent" {
		t.Fatalf("second silence: %v (%s)", act, m.staleWhy)
	}
	now := out.Add(30 * time.Minute)
	if act, _ := m.next(now, out); act != actWarn {
		t.Fatalf("silent 30m: %v, want the stuck warning first", act)
	}
	if act, wake := m.next(now.Add(time.Second), out); act != actNone || !wake.Equal(now.Add(m.timeout)) {
		t.Fatalf("after the warning: %v, wake %v", act, wake)
	}
	if act, _ := m.next(now.Add(m.timeout), out); act != actStalled {
		t.Fatalf("unanswered warning: %v, want stalled", act)
	}
}

// An agent that keeps printing but never checkpoints is stale all the same
// (checkpoint age is a signal of its own); a checkpoint after the warning
// saves it from the restart.
func TestMonitorChattyAgentWithoutCheckpointsIsStale(t *testing.T) {
	t0 := time.Unix(1000, 0)
	m := testMonitor(t0)
	m.interval, m.nextRequest = time.Hour, t0.Add(time.Hour)
	for d := time.Minute; d < 10*time.Minute; d += time.Minute {
		if act, _ := m.next(t0.Add(d), t0.Add(d)); act != actNone {
			t.Fatalf("at %s: %v", d, act)
		}
	}
	now := t0.Add(10 * time.Minute)
	if act, _ := m.next(now, now); act != actStale || m.staleWhy != "no_checkpoint" {
		t.Fatalf("printing, no checkpoint for 10m: %v (%s)", act, m.staleWhy)
	}
	now = t0.Add(30 * time.Minute)
	if act, _ := m.next(now, now); act != actWarn {
		t.Fatalf("no checkpoint for 30m: %v, want the warning", act)
	}
	m.checkpoint(now.Add(5*time.Second), false) // it answers
	if act, _ := m.next(now.Add(m.timeout), now.Add(m.timeout)); act != actNone {
		t.Fatalf("after the answer: %v", act)
	}
}

// A blocked agent is asked again only after three intervals, and is not
// stale for lack of checkpoints while it says so (silence still counts).
func TestMonitorBlockedAgent(t *testing.T) {
	t0 := time.Unix(1000, 0)
	m := testMonitor(t0)
	m.checkpoint(t0, true)
	if act, wake := m.next(t0.Add(6*time.Minute), t0.Add(6*time.Minute)); act != actNone || !wake.Equal(t0.Add(15*time.Minute)) {
		t.Fatalf("blocked: %v, next look %v (want a request after 3 intervals)", act, wake)
	}
	if act, _ := m.next(t0.Add(12*time.Minute), t0.Add(11*time.Minute)); act != actNone {
		t.Fatalf("blocked, printing, 12m without a checkpoint: %v", act)
	}
}

func TestMonitorHeldAtALimitSilencesAlarms(t *testing.T) {
	t0 := time.Unix(1000, 0)
	m := testMonitor(t0)
	m.awaiting, m.requestedAt = true, t0
	m.hold()
	// Hours of silence while held: no request, no timeout, no stale, no
	// stalled, and no wake of its own (the release wakes the session).
	if act, wake := m.next(t0.Add(3*time.Hour), t0); act != actNone || !wake.IsZero() {
		t.Fatalf("held: %v, wake %v", act, wake)
	}
	now := t0.Add(3 * time.Hour)
	m.release(now)
	// One request at the next turn boundary (output quiet for turnQuiet),
	// and the clocks count from the release.
	if act, wake := m.next(now, now); act != actNone || !wake.Equal(now.Add(m.turnQuiet)) {
		t.Fatalf("released, output just now: %v, wake %v", act, wake)
	}
	if act, _ := m.next(now.Add(m.turnQuiet), now); act != actRequest {
		t.Fatalf("released, quiet: %v, want a request", act)
	}
	if act, wake := m.next(now.Add(m.turnQuiet+time.Second), now); act != actNone || !wake.Equal(now.Add(m.turnQuiet).Add(m.timeout)) {
		t.Fatalf("after the request: %v, wake %v", act, wake)
	}
}

// A rejected block that follows a request is its answer: no timeout; a
// correction (itself a request) is due at the next turn boundary, one per
// request however many blocks are rejected; put off, it waits without
// moving the next request; the next request gets a correction of its own;
// and only a valid checkpoint clears the rejection the stale alarms name.
func TestMonitorRejectedAnswerIsAnsweredAndCorrectedOnce(t *testing.T) {
	t0 := time.Unix(1000, 0)
	m := testMonitor(t0)
	m.staleWarn, m.staleFail = time.Hour, 2*time.Hour // the stale alarms are another test's
	ask := t0.Add(5 * time.Minute)
	if act, _ := m.next(ask, t0); act != actRequest {
		t.Fatalf("no request: %v", act)
	}
	at := ask.Add(2 * time.Second)
	if !m.rejected(at, "unknown status") {
		t.Fatal("a rejected block after a request is not its answer")
	}
	if m.rejected(at, "unknown status") {
		t.Fatal("a second rejected block answered the same request again")
	}
	// The turn boundary is turnQuiet after the answer was printed.
	if act, wake := m.next(at, at); act != actNone || !wake.Equal(at.Add(m.turnQuiet)) {
		t.Fatalf("right after the rejected answer: %v, wake %v; want the correction's turn boundary", act, wake)
	}
	// Put off once (the screen showed no turn boundary): it waits, and the
	// next request keeps its time.
	if act, _ := m.next(at.Add(m.turnQuiet), at); act != actCorrect {
		t.Fatalf("at the turn boundary: %v, want the correction", act)
	}
	next := m.nextRequest
	m.notYet(at.Add(m.turnQuiet))
	if !m.nextRequest.Equal(next) {
		t.Errorf("a correction put off moved the next request from %v to %v", next, m.nextRequest)
	}
	now := at.Add(m.turnQuiet + time.Second)
	if act, _ := m.next(now, at); act != actCorrect {
		t.Fatalf("after the put off: %v, want the correction again", act)
	}
	// The correction's answer is rejected too: no timeout, no correction
	// of the correction.
	if !m.rejected(now.Add(time.Second), "unknown status") {
		t.Fatal("the answer to the correction is not its answer")
	}
	for d := time.Second; d < m.interval; d += time.Second {
		if act, _ := m.next(now.Add(d), now.Add(time.Second)); act != actNone {
			t.Fatalf("%s after the correction's rejected answer: %v", d, act)
		}
	}
	// The next request, an interval after that answer, gets its own.
	now = now.Add(time.Second + m.interval)
	if act, _ := m.next(now, now.Add(-m.interval)); act != actRequest {
		t.Fatalf("the next request: %v", act)
	}
	m.rejected(now, "placeholder")
	if act, _ := m.next(now.Add(m.turnQuiet), now); act != actCorrect {
		t.Fatalf("the next request's rejected answer: %v, want its correction", act)
	}
	if m.rejectedWhy != "placeholder" {
		t.Errorf("rejectedWhy %q, want the last reason", m.rejectedWhy)
	}
	m.checkpoint(now.Add(m.turnQuiet+time.Second), false)
	if m.rejectedWhy != "" || !m.correctAt.IsZero() || m.awaiting {
		t.Errorf("a valid checkpoint left the rejection: %q, correction at %v, awaiting %v", m.rejectedWhy, m.correctAt, m.awaiting)
	}
}
