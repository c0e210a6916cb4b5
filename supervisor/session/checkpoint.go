package session

import (
	"fmt"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/event"
)

// handle acts on the reader's events; it reports whether the task is done.
func (s *Session) handle(events []readerEvent) (done bool) {
	for _, e := range events {
		switch {
		case e.block != nil:
			if s.onBlock(*e.block) {
				done = true
			}
		case e.settled:
			s.checkBanner()
			s.checkDialog()
		case e.signals:
			s.checkDialog()
		case e.putOff:
			s.mon.notYet(s.cfg.Clock.Now())
		case e.hook != nil:
			s.onHook(*e.hook)
		case e.restart:
			s.beginRestart()
		case e.complete:
			s.r.Complete()
		default:
			s.reject(e.reason, e.text)
		}
	}
	return done
}

func (s *Session) reject(reason, text string) {
	s.log.Warn("checkpoint block rejected", "task", s.taskID(), "reason", reason)
	s.log.Debug("rejected block text", "text", text)
	s.r.Event(event.CheckpointRejected, "reason", reason)
}

// onBlock hands a new answer (the reader's ledger decided it is one) to the
// agent as a record, and types a failed verify's output back. It reports
// whether the task is done.
func (s *Session) onBlock(b protocol.Block) bool {
	if s.cfg.Task == nil {
		s.reject("checkpoint from an agent that has no task", "")
		return false
	}
	if b.Task != s.cfg.Task.ID {
		s.reject(fmt.Sprintf("checkpoint for task %q, but the agent works on %q", b.Task, s.cfg.Task.ID), "")
		return false
	}
	trigger := protocol.TriggerUnasked
	switch {
	case s.lastAsked:
		trigger = protocol.TriggerTeamCheckpoint
	case s.mon.awaiting:
		trigger = protocol.TriggerRequest
	}
	v := s.r.Record(s.record(b, trigger))
	if !v.Saved {
		return false // not on disk: it does not count, the timers run on
	}
	s.mon.checkpoint(s.cfg.Clock.Now(), b.Status == protocol.StatusBlocked)
	s.lastAsked = false
	if s.restart {
		s.restartSaved = true
	}
	if v.Feedback != "" {
		s.typeText(v.Feedback)
	}
	return v.Done
}

// record builds the checkpoint record of a block (DESIGN §5 fields); the
// agent adds what the session does not know (started_at of the task, git).
func (s *Session) record(b protocol.Block, trigger string) *protocol.Checkpoint {
	now := s.cfg.Clock.Now().UTC()
	next := now.Add(s.cfg.Timers.CheckpointInterval)
	cp := b.Record()
	cp.CheckpointID = fmt.Sprintf("%s-%s-%s", s.cfg.Agent, b.Task, now.Format("20060102T150405.000000000Z"))
	cp.Agent, cp.TaskTitle, cp.SessionID, cp.Attempt, cp.Trigger = s.cfg.Agent, s.cfg.Task.Title, s.id, s.cfg.Attempt, trigger
	if trigger == protocol.TriggerTeamCheckpoint {
		cp.Cause = s.cfg.Team.Cause()
	}
	cp.StartedAt, cp.UpdatedAt, cp.NextCheckpointExpected = s.started.UTC(), now, &next
	if b.Status == protocol.StatusComplete {
		cp.CompletedAt = &now
	}
	return &cp
}
