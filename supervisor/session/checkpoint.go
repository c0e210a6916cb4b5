package session

import (
	"fmt"
	"slices"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/event"
)

// lastRecord is the session's latest saved record, what a late amendment
// updates, and the block it was made of.
type lastRecord struct {
	cp    *protocol.Checkpoint
	block protocol.Block
}

// handle acts on the reader's events; it reports whether the task is done.
func (s *Session) handle(events []readerEvent) (done bool) {
	for _, e := range events {
		switch {
		case e.block != nil:
			s.heldReject = nil // the answer drawn whole (heldreject.go)
			if done || s.pacedOut(e.block) {
				continue // the task is done; or the pace holds it back
			}
			if s.onBlock(*e.block) {
				done = true
			}
		case e.settled:
			s.sayHeldRejection()
			s.checkBanner()
			s.checkDialog()
		case e.signals:
			s.checkDialog()
		case e.putOff:
			s.mon.notYet(s.cfg.Clock.Now())
		case e.hook != nil:
			s.onHook(*e.hook)
		case e.channel != nil:
			s.onChannel(*e.channel)
		case e.restart:
			s.beginRestart()
		case e.park:
			s.applyPark()
		case e.complete:
			s.r.Complete()
		case e.synced != nil:
			close(e.synced)
		case s.templateDrawnAgain(e):
		case s.holdRejection(e):
		default:
			s.reject(e.reason, e.text, isBlockText(e.text))
		}
	}
	return done
}

// reject reports what the reader or the session did not record, and why;
// answer: it was a block, the agent's answer (not late lines of one), which
// the user and the agent are told of (rejected.go).
func (s *Session) reject(reason, text string, answer bool) {
	s.log.Warn("checkpoint block rejected", "task", s.taskID(), "reason", reason)
	s.log.Debug("rejected block text", "text", text)
	s.r.Event(event.CheckpointRejected, "reason", reason)
	if answer {
		s.answerRejected(reason)
	}
}

// onBlock hands a new answer (the reader's ledger decided it is one) to the
// agent as a record. It reports whether the task is done: a record that
// completes it, or one made after its verify passed off the loop. A task
// with a verify answers Verifying; the verdict comes later (Verified).
func (s *Session) onBlock(b protocol.Block) bool {
	if s.cfg.Task == nil {
		s.reject("checkpoint from an agent that has no task", "", false)
		return false
	}
	if b.Task != s.cfg.Task.ID {
		s.reject(fmt.Sprintf("checkpoint for task %q, but the agent works on %q", b.Task, s.cfg.Task.ID), "", true)
		return false
	}
	if b.Amends && s.amends(b) {
		s.amend(b)
		return false
	}
	// A block drawn above the echo of the request awaited answers an
	// earlier one (it came after that timed out): recorded, it leaves the
	// request awaited — taken for the last call's answer, the last call's
	// own was drawn after the team stopped the agent, never recorded.
	late := b.Before && s.mon.awaiting
	trigger := protocol.TriggerUnasked
	switch {
	case late:
		trigger = protocol.TriggerRequest
	case s.lastAsked:
		trigger = protocol.TriggerTeamCheckpoint
	case s.mon.awaiting:
		trigger = protocol.TriggerRequest
	}
	cp := s.record(b, trigger)
	v := s.r.Record(cp)
	if v.Drawn {
		return false
	}
	if !v.Saved {
		if v.Done {
			return true // the task completed meanwhile (its verify passed): this answer came after
		}
		// Not on disk: it does not count. The timers run on, and the
		// reader takes it back, so that the same answer given again counts.
		s.reader.Forget(b)
		return false
	}
	if s.moves(b) {
		s.mon.moved(s.cfg.Clock.Now()) // idle.go
	}
	s.latest.cp, s.latest.block = cp, b
	if late {
		s.log.Info("a late answer, drawn above the echo of the request awaited: that request is still awaited", "task", b.Task)
		s.mon.lateAnswer(s.cfg.Clock.Now())
	} else {
		s.mon.checkpoint(s.cfg.Clock.Now(), b.Status == protocol.StatusBlocked)
		s.lastAsked = false
	}
	if s.restart.asked {
		s.restart.saved = true
	}
	if v.Feedback != "" && !s.ending {
		s.typeText(v.Feedback)
	}
	return v.Done
}

// record builds the checkpoint record of a block (DESIGN §5 fields); the
// agent adds what the session does not know (started_at of the task, git).
func (s *Session) record(b protocol.Block, trigger string) *protocol.Checkpoint {
	o := protocol.Origin{Agent: s.cfg.Agent, TaskTitle: s.cfg.Task.Title, SessionID: s.id, Attempt: s.cfg.Attempt,
		Trigger: trigger, StartedAt: s.started, At: s.cfg.Clock.Now(), Next: s.cfg.Timers.CheckpointInterval}
	if b.Status == protocol.StatusBlocked {
		// A blocked agent is asked again only after three intervals (the
		// monitor's checkpoint): the record says when that is.
		o.Next = 3 * s.cfg.Timers.CheckpointInterval
	}
	if trigger == protocol.TriggerTeamCheckpoint {
		o.Cause = s.cfg.Team.Cause()
	}
	cp := protocol.NewRecord(b, o)
	cp.Usage = s.recordUsage() // what the session spent so far (usage.go)
	return &cp
}

// amend completes the session's latest record with the optional lines of
// b that came late (Blockers, Notes, Resume): the same record, updated in
// place — same checkpoint_id, trigger and epoch — never a new one.
func (s *Session) amend(b protocol.Block) {
	cp := *s.latest.cp
	cp.SetOptional(b) // every optional line, made Plain like the record's
	cp.UpdatedAt = s.cfg.Clock.Now().UTC()
	if !s.r.Amend(&cp) {
		s.reader.Forget(b) // not on disk: the same lines given again count
		return
	}
	s.latest.cp, s.latest.block = &cp, b
}

// amends reports whether b, which the reader reports as completing its
// latest answer, completes the session's latest record: the same task and
// required lines. When that answer was never recorded (dropped in a flood),
// b is an answer of its own.
func (s *Session) amends(b protocol.Block) bool {
	l := s.latest.block
	return s.latest.cp != nil && l.Task == b.Task && l.Status == b.Status && l.Progress == b.Progress &&
		slices.Equal(l.Completed, b.Completed) && slices.Equal(l.Remaining, b.Remaining) &&
		slices.Equal(l.FilesModified, b.FilesModified)
}
