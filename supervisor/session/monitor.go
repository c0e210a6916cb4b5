package session

import "time"

// action is what the monitor says a session should do now.
type action int

const (
	actNone    action = iota
	actRequest        // type a CHECKPOINT REQUEST
	actTimeout        // the answer to the last request is late
	actStale          // no progress for stale_warning
	actWarn           // … for stale_failure: tell the agent it looks stuck, ask for a checkpoint
	actStalled        // still nothing checkpoint_timeout after the warning: restart from the checkpoint
	actCorrect        // an answer was rejected: tell the agent what to fix, and ask again
	actNudge          // its checkpoints stand still at its prompt: type it a line (idle.go)
	actIdle           // … after the last nudge too: tell a person
)

// monitor is the timer policy of one busy agent session, a plain object
// driven by the times it is given:
//   - a checkpoint request checkpoint_interval after the last checkpoint (or
//     the session's start), typed only at a turn boundary: output quiet for
//     turnQuiet;
//   - checkpoint_timeout to answer it, else a timeout (then the next request
//     comes an interval later);
//   - stale detection on two independent signals, output silence (the
//     agent's own output: warden's typed text and its echo never count) and
//     checkpoint age (no valid checkpoint, however much the agent prints):
//     either one reaching stale_warning warns once; reaching stale_failure,
//     the agent is told it looks stuck and asked for a checkpoint, and if
//     none comes within checkpoint_timeout it has stalled. A blocked agent
//     (its last checkpoint said so) is judged on silence alone, and asked
//     again only after three intervals;
//   - a rejected block (rejected) that follows a request is that request's
//     answer: no timeout for it; the agent is told what was wrong and asked
//     again at the next turn boundary (a correction, itself a request), once
//     a request. It is no checkpoint: the checkpoint age runs on, and the
//     stale alarms say why (rejectedWhy).
type monitor struct {
	interval, timeout, staleWarn, staleFail, turnQuiet time.Duration

	start, lastCheckpoint, nextRequest, requestedAt time.Time
	awaiting, warned                                bool
	// askedBefore is requestedAt before the request now due: a request
	// put off (notYet) was never typed, and under warden wrap the user's
	// work it was for still wants one.
	askedBefore time.Time
	// stuckAt: when the agent was told it looks stuck (zero: not told).
	stuckAt time.Time
	// blocked: the last checkpoint's status was blocked.
	blocked bool
	// staleWhy says which signal made the agent stale: "silent" or
	// "no_checkpoint".
	staleWhy string
	// rejectedWhy: why the agent's last answer was rejected, when it gave
	// one since its last valid checkpoint ("": none).
	rejectedWhy string
	// correctAt: a correction is due at the first turn boundary from then
	// (zero: none). corrected: the request awaited, or the last one, has had
	// its correction (a request gets one, however many blocks are
	// rejected); correcting: the request awaited is a correction.
	correctAt             time.Time
	corrected, correcting bool
	// held: the agent's account is parked at its usage limit; no requests
	// and no stale alarms until it is released. resumedAt (a dialog's end,
	// a release) counts as activity.
	held      bool
	resumedAt time.Time
	// waiting: the agent waits on a dialog for a person. Nothing is asked
	// and nothing is stale until it is gone.
	waiting bool
	// userDriven: warden wrap, where the user drives the session and
	// userAt is when they last typed (wrapuser.go).
	userDriven bool
	userAt     time.Time
	// idle: the checkpoints that stopped moving (idle.go).
	idle idleClock
}

// wait starts (on) or ends a dialog wait at now. A request outstanding when
// the dialog appeared gets its full checkpoint_timeout after it is gone.
func (m *monitor) wait(on bool, now time.Time) {
	if m.waiting == on {
		return
	}
	m.waiting = on
	if !on {
		m.resumedAt, m.warned, m.stuckAt = now, false, time.Time{}
		if m.awaiting {
			m.requestedAt = now
		}
		m.nextRequest = latest(m.nextRequest, now.Add(m.turnQuiet))
	}
}

// hold stops the clocks (the account is parked): no request is due, none
// is awaited, nothing is stale.
func (m *monitor) hold() {
	m.held, m.awaiting, m.correcting, m.correctAt = true, false, false, time.Time{}
}

// release starts the clocks again at now, after a park: the clocks count
// from now, and one checkpoint request is due at the next turn boundary.
func (m *monitor) release(now time.Time) {
	if !m.held {
		return
	}
	m.held, m.awaiting, m.warned, m.stuckAt = false, false, false, time.Time{}
	m.resumedAt, m.nextRequest = now, now
}

func newMonitor(c Timers, turnQuiet time.Duration, start time.Time) *monitor {
	return &monitor{interval: c.CheckpointInterval, timeout: c.CheckpointTimeout,
		staleWarn: c.StaleWarning, staleFail: c.StaleFailure, turnQuiet: turnQuiet,
		start: start, nextRequest: start.Add(c.CheckpointInterval),
		idle: idleClock{after: c.IdleAfter, nudges: c.IdleNudges}}
}

// notYet puts a due request off: the screen does not show a turn boundary.
// It is looked at again after turnQuiet. Nothing was typed, so nothing was
// requested.
func (m *monitor) notYet(now time.Time) {
	m.awaiting, m.requestedAt = false, m.askedBefore
	if m.correcting { // the correction waits, the next request keeps its time
		m.correcting, m.correctAt = false, now.Add(max(m.turnQuiet, time.Second))
		return
	}
	m.nextRequest = now.Add(max(m.turnQuiet, time.Second))
}

// checkpoint records a valid checkpoint at now; blocked: its status said
// the agent is blocked (asked again only after three intervals).
func (m *monitor) checkpoint(now time.Time, blocked bool) {
	m.lastCheckpoint, m.awaiting, m.warned, m.stuckAt, m.blocked = now, false, false, time.Time{}, blocked
	m.rejectedWhy, m.correctAt, m.corrected, m.correcting = "", time.Time{}, false, false
	m.nextRequest = now.Add(m.interval)
	if blocked {
		m.nextRequest = now.Add(3 * m.interval)
	}
}

// lateAnswer records at now a valid checkpoint that answered an earlier
// request than the one awaited: the checkpoint's age starts again, the
// request stays awaited (its timeout runs on).
func (m *monitor) lateAnswer(now time.Time) { m.lastCheckpoint = now }

// rejected records at now that the agent answered with a block warden
// rejected, and why. It reports whether the block answered the request
// awaited: that request is over (no timeout), the next one comes an
// interval later, and, unless the request was a correction or had one, a
// correction is due at the next turn boundary.
func (m *monitor) rejected(now time.Time, why string) (answered bool) {
	m.rejectedWhy = why
	if !m.awaiting {
		return false
	}
	m.awaiting, m.correcting = false, false
	if m.stuckAt.IsZero() {
		m.nextRequest = now.Add(m.interval)
	}
	if !m.corrected {
		m.corrected, m.correctAt = true, now
	}
	return true
}

// correct returns actCorrect when a correction is due at now, given when
// the turn boundary is (quietAt), and marks it awaited.
func (m *monitor) correct(now, quietAt time.Time) bool {
	if m.correctAt.IsZero() || m.awaiting || now.Before(latest(m.correctAt, quietAt)) {
		return false
	}
	m.correctAt, m.correcting = time.Time{}, true
	m.awaiting, m.askedBefore, m.requestedAt = true, m.requestedAt, now
	return true
}

// next returns the action due at now, given the time of the last output, and
// when to look again if there is none. Call it until it returns actNone.
func (m *monitor) next(now, lastOutput time.Time) (action, time.Time) {
	if m.waiting {
		return actNone, time.Time{} // the dialog's end wakes the session
	}
	if m.held {
		return actNone, time.Time{} // the release wakes the session
	}
	if m.userDriven {
		return m.nextForUser(now, lastOutput)
	}
	silentFrom := latest(m.start, m.lastCheckpoint, lastOutput, m.resumedAt)
	ageFrom := latest(m.start, m.lastCheckpoint, m.resumedAt)
	if m.blocked {
		ageFrom = silentFrom
	}
	from := earliest(silentFrom, ageFrom) // the older of the two signals
	idle := now.Sub(from)
	switch {
	case !m.stuckAt.IsZero() && !now.Before(m.stuckAt.Add(m.timeout)):
		return actStalled, time.Time{}
	case idle >= m.staleFail && m.stuckAt.IsZero():
		m.stuckAt, m.awaiting, m.requestedAt = now, true, now
		m.corrected, m.correcting, m.correctAt = false, false, time.Time{}
		m.staleWhy = staleSignal(now.Sub(silentFrom) >= m.staleFail)
		return actWarn, time.Time{}
	case idle >= m.staleWarn && !m.warned:
		m.warned, m.staleWhy = true, staleSignal(now.Sub(silentFrom) >= m.staleWarn)
		return actStale, time.Time{}
	case idle < m.staleWarn:
		m.warned, m.stuckAt = false, time.Time{}
	}
	quietAt := lastOutput.Add(m.turnQuiet)
	if m.correct(now, quietAt) {
		return actCorrect, time.Time{}
	}
	if !m.stuckAt.IsZero() {
		wake := m.stuckAt.Add(m.timeout)
		if !m.correctAt.IsZero() && !m.awaiting {
			wake = earliest(wake, latest(m.correctAt, quietAt))
		}
		return actNone, wake
	}
	if m.awaiting && !now.Before(m.requestedAt.Add(m.timeout)) {
		m.awaiting, m.correcting = false, false
		m.nextRequest = now.Add(m.interval)
		return actTimeout, time.Time{}
	}
	if act, ok := m.idleNext(now, quietAt); ok {
		return act, time.Time{}
	}
	if !m.awaiting && !now.Before(m.nextRequest) && !now.Before(quietAt) {
		m.awaiting, m.askedBefore, m.requestedAt = true, m.requestedAt, now
		m.corrected, m.correctAt = false, time.Time{}
		return actRequest, time.Time{}
	}
	wake := from.Add(m.staleFail)
	if !m.warned {
		wake = earliest(wake, from.Add(m.staleWarn))
	}
	if m.awaiting {
		wake = earliest(wake, m.requestedAt.Add(m.timeout))
	} else {
		wake = earliest(wake, latest(m.nextRequest, quietAt))
		if !m.correctAt.IsZero() {
			wake = earliest(wake, latest(m.correctAt, quietAt))
		}
		if due := m.idleDue(quietAt); !due.IsZero() {
			wake = earliest(wake, due)
		}
	}
	return actNone, wake
}

// staleSignal names the signal that made an agent stale: its silence, or else the
// age of its last checkpoint.
func staleSignal(silent bool) string {
	if silent {
		return "silent"
	}
	return "no_checkpoint"
}

func latest(ts ...time.Time) time.Time {
	var l time.Time
	for _, t := range ts {
		if t.After(l) {
			l = t
		}
	}
	return l
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
