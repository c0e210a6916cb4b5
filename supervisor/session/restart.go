package session

import (
	"sync/atomic"
	"time"

	"github.com/wardenhq/warden/protocol"
)

// restartAsk is a warden restart under way: a last checkpoint asked for
// (asked), its deadline (by), and whether the answer came (saved).
type restartAsk struct {
	asked bool
	by    time.Time
	saved bool
}

// due are, for warden ps, the unix nanos of the next checkpoint request (0:
// none planned) and of the request awaiting its answer (0: none).
type due struct{ next, asked atomic.Int64 }

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
	if s.restart.asked {
		return
	}
	now := s.cfg.Clock.Now()
	s.restart.asked, s.restart.by = true, now
	if s.cfg.Task == nil || s.waiting() {
		s.log.Info("restart asked for: stopping the session now", "waiting", s.waiting())
		return
	}
	s.log.Info("restart asked for: a last checkpoint request first", "task", s.cfg.Task.ID)
	s.restart.by = now.Add(s.cfg.Timers.CheckpointTimeout)
	s.mon.awaiting, s.mon.requestedAt = true, now
	s.typeRequest(protocol.Request(s.cfg.Task.ID), true, "session_id", s.id, "trigger", "restart")
}

// restartDue reports whether a restart asked for is to happen now: its
// last checkpoint is in, or the wait for it is over.
func (s *Session) restartDue() bool {
	return s.restart.asked && (s.restart.saved || !s.cfg.Clock.Now().Before(s.restart.by))
}

// publishDue makes the monitor's plan readable by others (warden ps).
func (s *Session) publishDue() {
	m := s.mon
	asked := int64(0)
	if m.awaiting {
		asked = m.requestedAt.UnixNano()
	}
	s.due.asked.Store(asked)
	s.due.next.Store(m.nextRequest.UnixNano())
}

// Due is when the next checkpoint request is planned (zero: none, a
// session without a task) and, if one awaits its answer, when it was typed.
func (s *Session) Due() (next, asked time.Time) {
	if n := s.due.next.Load(); n != 0 {
		next = time.Unix(0, n)
	}
	if n := s.due.asked.Load(); n != 0 {
		asked = time.Unix(0, n)
	}
	return next, asked
}

// Started is when the session's process started.
func (s *Session) Started() time.Time { return s.started }
