package session

import (
	"time"

	"github.com/wardenhq/warden/protocol"
)

// Restart asks the session for a last checkpoint and then to end, so that
// its agent starts a new session from that checkpoint (warden restart). It
// returns at once; the session ends with Restarted.
func (s *Session) Restart() error {
	select {
	case <-s.ended:
		return ErrEnded
	default:
	}
	s.push(readerEvent{restart: true})
	return nil
}

// beginRestart (the loop) types the last checkpoint request; the session
// quits once it is answered or checkpoint_timeout has passed. An agent
// without a task, or one that waits on a dialog (nothing is typed into
// one), is stopped at once.
func (s *Session) beginRestart() {
	if s.restart {
		return
	}
	now := s.cfg.Clock.Now()
	s.restart, s.restartBy = true, now
	if s.cfg.Task == nil || s.waiting() {
		s.log.Info("restart asked for: stopping the session now", "waiting", s.waiting())
		return
	}
	s.log.Info("restart asked for: a last checkpoint request first", "task", s.cfg.Task.ID)
	s.restartBy = now.Add(s.cfg.Timers.CheckpointTimeout)
	s.mon.awaiting, s.mon.requestedAt = true, now
	s.typeRequest(protocol.Request(s.cfg.Task.ID), true, "session_id", s.id, "trigger", "restart")
}

// restartDue reports whether a restart asked for is to happen now: its
// last checkpoint is in, or the wait for it is over.
func (s *Session) restartDue() bool {
	return s.restart && (s.restartSaved || !s.cfg.Clock.Now().Before(s.restartBy))
}

// publishDue makes the monitor's plan readable by others (warden ps).
func (s *Session) publishDue() {
	m := s.mon
	asked := int64(0)
	if m.awaiting {
		asked = m.requestedAt.UnixNano()
	}
	s.askedAt.Store(asked)
	s.nextDue.Store(m.nextRequest.UnixNano())
}

// Due is when the next checkpoint request is planned (zero: none, a
// session without a task) and, if one awaits its answer, when it was typed.
func (s *Session) Due() (next, asked time.Time) {
	if n := s.nextDue.Load(); n != 0 {
		next = time.Unix(0, n)
	}
	if n := s.askedAt.Load(); n != 0 {
		asked = time.Unix(0, n)
	}
	return next, asked
}

// Started is when the session's process started.
func (s *Session) Started() time.Time { return s.started }
