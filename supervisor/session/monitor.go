package session

import "time"

// action is what the monitor says a session should do now.
type action int

const (
	actNone    action = iota
	actRequest        // type a CHECKPOINT REQUEST
	actTimeout        // the answer to the last request is late
	actStale          // no output and no checkpoint for stale_warning
	actStalled        // … for stale_failure: restart from the checkpoint
	actResume         // a usage-limit pause is over: tell the agent to continue
)

// monitor is the timer policy of one busy agent session, a plain object
// driven by the times it is given:
//   - a checkpoint request checkpoint_interval after the last checkpoint (or
//     the session's start), typed only at a turn boundary: output quiet for
//     turnQuiet;
//   - checkpoint_timeout to answer it, else a timeout (then the next request
//     comes an interval later);
//   - stale detection on two signals, output silence and checkpoint age:
//     activity is the latest of the last output, the last checkpoint and the
//     start; stale_warning after it warns once, stale_failure fails.
type monitor struct {
	interval, timeout, staleWarn, staleFail, turnQuiet time.Duration

	start, lastCheckpoint, nextRequest, requestedAt time.Time
	awaiting, warned                                bool
	// pausedUntil: the agent hit a usage limit; no requests and no stale
	// alarms until then. resumedAt counts as activity after the pause.
	pausedUntil, resumedAt time.Time
	// waiting: the agent waits on a dialog for a person. Nothing is asked
	// and nothing is stale until it is gone.
	waiting bool
}

// wait starts (on) or ends a dialog wait at now. A request outstanding when
// the dialog appeared gets its full checkpoint_timeout after it is gone.
func (m *monitor) wait(on bool, now time.Time) {
	if m.waiting == on {
		return
	}
	m.waiting = on
	if !on {
		m.resumedAt, m.warned = now, false
		if m.awaiting {
			m.requestedAt = now
		}
		m.nextRequest = latest(m.nextRequest, now.Add(m.turnQuiet))
	}
}

// pause holds the agent (a usage limit) until until.
func (m *monitor) pause(until time.Time) {
	m.pausedUntil, m.awaiting = until, false
}

// paused reports whether a usage-limit pause is on.
func (m *monitor) paused() bool { return !m.pausedUntil.IsZero() }

func newMonitor(c Timers, turnQuiet time.Duration, start time.Time) *monitor {
	return &monitor{interval: c.CheckpointInterval, timeout: c.CheckpointTimeout,
		staleWarn: c.StaleWarning, staleFail: c.StaleFailure, turnQuiet: turnQuiet,
		start: start, nextRequest: start.Add(c.CheckpointInterval)}
}

// notYet puts a due request off: the screen does not show a turn boundary.
// It is looked at again after turnQuiet.
func (m *monitor) notYet(now time.Time) {
	m.awaiting = false
	m.nextRequest = now.Add(max(m.turnQuiet, time.Second))
}

// checkpoint records a valid checkpoint at now.
func (m *monitor) checkpoint(now time.Time) {
	m.lastCheckpoint, m.awaiting, m.warned = now, false, false
	m.nextRequest = now.Add(m.interval)
}

// next returns the action due at now, given the time of the last output, and
// when to look again if there is none. Call it until it returns actNone.
func (m *monitor) next(now, lastOutput time.Time) (action, time.Time) {
	if m.waiting {
		return actNone, time.Time{} // the dialog's end wakes the session
	}
	if m.paused() {
		if now.Before(m.pausedUntil) {
			return actNone, m.pausedUntil
		}
		m.pausedUntil, m.resumedAt, m.warned = time.Time{}, now, false
		m.nextRequest = now.Add(m.interval)
		return actResume, time.Time{}
	}
	activity := latest(m.start, m.lastCheckpoint, lastOutput, m.resumedAt)
	idle := now.Sub(activity)
	switch {
	case idle >= m.staleFail:
		return actStalled, time.Time{}
	case idle >= m.staleWarn && !m.warned:
		m.warned = true
		return actStale, time.Time{}
	case idle < m.staleWarn:
		m.warned = false
	}
	if m.awaiting && !now.Before(m.requestedAt.Add(m.timeout)) {
		m.awaiting = false
		m.nextRequest = now.Add(m.interval)
		return actTimeout, time.Time{}
	}
	quietAt := lastOutput.Add(m.turnQuiet)
	if !m.awaiting && !now.Before(m.nextRequest) && !now.Before(quietAt) {
		m.awaiting, m.requestedAt = true, now
		return actRequest, time.Time{}
	}
	wake := activity.Add(m.staleFail)
	if !m.warned {
		wake = earliest(wake, activity.Add(m.staleWarn))
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
