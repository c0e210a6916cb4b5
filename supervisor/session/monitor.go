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
//     again only after three intervals.
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
func (m *monitor) hold() { m.held, m.awaiting = true, false }

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
		start: start, nextRequest: start.Add(c.CheckpointInterval)}
}

// notYet puts a due request off: the screen does not show a turn boundary.
// It is looked at again after turnQuiet. Nothing was typed, so nothing was
// requested.
func (m *monitor) notYet(now time.Time) {
	m.awaiting, m.requestedAt = false, m.askedBefore
	m.nextRequest = now.Add(max(m.turnQuiet, time.Second))
}

// checkpoint records a valid checkpoint at now; blocked: its status said
// the agent is blocked (asked again only after three intervals).
func (m *monitor) checkpoint(now time.Time, blocked bool) {
	m.lastCheckpoint, m.awaiting, m.warned, m.stuckAt, m.blocked = now, false, false, time.Time{}, blocked
	m.nextRequest = now.Add(m.interval)
	if blocked {
		m.nextRequest = now.Add(3 * m.interval)
	}
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
		return actWarn, time.Time{}
	case idle >= m.staleWarn && !m.warned:
		m.warned, m.staleWhy = true, "no_checkpoint"
		if now.Sub(silentFrom) >= m.staleWarn {
			m.staleWhy = "silent"
		}
		return actStale, time.Time{}
	case idle < m.staleWarn:
		m.warned, m.stuckAt = false, time.Time{}
	}
	if !m.stuckAt.IsZero() {
		return actNone, m.stuckAt.Add(m.timeout)
	}
	if m.awaiting && !now.Before(m.requestedAt.Add(m.timeout)) {
		m.awaiting = false
		m.nextRequest = now.Add(m.interval)
		return actTimeout, time.Time{}
	}
	quietAt := lastOutput.Add(m.turnQuiet)
	if !m.awaiting && !now.Before(m.nextRequest) && !now.Before(quietAt) {
		m.awaiting, m.askedBefore, m.requestedAt = true, m.requestedAt, now
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
	}
	return actNone, wake
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
