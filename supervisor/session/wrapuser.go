package session

import "time"

// Under warden wrap the user drives the session in their own terminal, and
// warden keeps out of the way: no first prompt when the CLI has the
// protocol already (supervisor/agent), nothing stale while the user is
// away (an idle session is theirs), and a checkpoint request only after
// the user's own activity since the last checkpoint — checkpoint_interval
// after it at the earliest, at a turn boundary, once the user's keys are
// quiet. A session nobody types into is never typed into.

// userQuiet is how long after the user's last keystroke a request waits:
// they may be in the middle of a line.
const userQuiet = 2 * time.Second

// userTyped notes the user's keystrokes p (any goroutine) and wakes the
// session when it had nothing to wait for: a request may be due now. What
// the user's terminal answers to the CLI's queries (device attributes, the
// cursor's place, focus and mouse reports) is not the user's work.
func (s *Session) userTyped(p []byte) {
	if !typedKeys(p) {
		return
	}
	now := s.cfg.Clock.Now()
	prev := s.input.lastUser.Swap(now.UnixNano())
	if now.Sub(time.Unix(0, prev)) > userQuiet {
		s.push(readerEvent{signals: true})
	}
}

// nextForUser is next under warden wrap (userDriven).
func (m *monitor) nextForUser(now, lastOutput time.Time) (action, time.Time) {
	if m.awaiting {
		if !now.Before(m.requestedAt.Add(m.timeout)) {
			m.awaiting, m.correcting = false, false
			m.nextRequest = now.Add(m.interval)
			return actTimeout, time.Time{}
		}
		return actNone, m.requestedAt.Add(m.timeout)
	}
	if !m.correctAt.IsZero() { // a rejected answer: the correction, once the user is quiet
		quiet := latest(lastOutput.Add(m.turnQuiet), m.userAt.Add(userQuiet))
		if m.correct(now, quiet) {
			return actCorrect, time.Time{}
		}
		return actNone, latest(m.correctAt, quiet)
	}
	if !m.userAt.After(latest(m.start, m.lastCheckpoint, m.requestedAt)) {
		return actNone, time.Time{} // the user's next keystroke wakes the session
	}
	due := latest(m.nextRequest, lastOutput.Add(m.turnQuiet), m.userAt.Add(userQuiet))
	if now.Before(due) {
		return actNone, due
	}
	m.awaiting, m.askedBefore, m.requestedAt = true, m.requestedAt, now
	m.corrected = false
	return actRequest, time.Time{}
}

// typedKeys reports whether p holds a key the user typed, outside the
// escape sequences a terminal sends on its own: CSI (with an X10 mouse
// report's three bytes), SS3, and OSC, DCS, SOS, PM and APC strings (to
// BEL or ST). An arrow key, itself a CSI, is no work either.
func typedKeys(p []byte) bool {
	for i := 0; i < len(p); i++ {
		if p[i] != 0x1b {
			return true
		}
		if i+1 >= len(p) {
			return false
		}
		switch i++; p[i] {
		case '[':
			j := i + 1
			for j < len(p) && (p[j] < 0x40 || p[j] > 0x7e) {
				j++
			}
			if j < len(p) && p[j] == 'M' && j == i+1 {
				j += 3 // X10 mouse: button, column, row
			}
			i = j
		case 'O':
			i++
		case ']', 'P', 'X', '^', '_':
			j := i + 1
			for j < len(p) && p[j] != 0x07 && !(p[j] == 0x1b && j+1 < len(p) && p[j+1] == '\\') {
				j++
			}
			if j < len(p) && p[j] == 0x1b {
				j++
			}
			i = j
		}
	}
	return false
}
