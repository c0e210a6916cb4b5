package supervisor

import (
	"fmt"
	"strings"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/store"
)

// handle acts on the reader's events; it reports whether the task is done.
func (s *session) handle(events []readerEvent) (done bool) {
	for _, e := range events {
		switch {
		case e.block != nil:
			if s.onBlock(*e.block) {
				done = true
			}
		case e.settled:
			s.checkBanner()
		case e.hook != nil:
			if s.onHook(*e.hook) {
				done = true
			}
		case e.complete:
			s.a.team.trigger(trigger{source: "lead", lead: s.a,
				reason: "agent " + s.a.cfg.Name + " printed CHECKPOINT COMPLETE"})
		default:
			s.reject(e.reason, e.text)
		}
	}
	return done
}

func (s *session) reject(reason, text string) {
	s.a.log.Warn("checkpoint block rejected", "task", taskID(s.task), "reason", reason)
	s.a.log.Debug("rejected block text", "text", text)
	s.a.team.events.Emit(EvCheckpointRejected, s.a.cfg.Name, taskID(s.task), "reason", reason)
}

// onBlock records a valid block as the task's checkpoint, and verifies the
// task when the agent says it is done. It reports whether the task is done.
func (s *session) onBlock(b protocol.Block) bool {
	t, name := s.a.team, s.a.cfg.Name
	if s.task == nil {
		s.reject("checkpoint from an agent that has no task", "")
		return false
	}
	if b.Task != s.task.ID {
		s.reject(fmt.Sprintf("checkpoint for task %q, but the agent works on %q", b.Task, s.task.ID), "")
		return false
	}
	epoch := int(s.epoch.Load())
	key := b.Key()
	if e, seen := s.recorded[key]; seen && (e == epoch || key != s.lastKey) {
		// The same answer through the other channel, or an older answer
		// redrawn: an agent answering again unchanged repeats its latest
		// checkpoint, never one it has since moved past.
		return false
	}
	s.lastKey = key
	if s.recorded == nil {
		s.recorded = map[string]int{}
	}
	s.recorded[b.Key()] = epoch
	trigger := store.TriggerUnasked
	switch {
	case s.lastAsked:
		trigger = store.TriggerTeamCheckpoint
	case s.mon.awaiting:
		trigger = store.TriggerRequest
	}
	now := t.clock.Now()
	s.mon.checkpoint(now)
	cp := s.checkpointOf(b, trigger)
	if err := t.store.Save(cp); err != nil {
		s.a.log.Error("checkpoint not saved", "task", b.Task, "error", err)
		return false
	}
	if t.onRecord != nil {
		t.onRecord(cp, time.Now())
	}
	s.a.checkpointed(now)
	t.queue.Progress(b.Task, b.Progress, b.Status)
	t.events.Emit(EvCheckpointReceived, name, b.Task, "checkpoint_id", cp.CheckpointID, "status", b.Status,
		"progress", b.Progress, "trigger", trigger, "session_id", s.id)
	t.printf("CHECKPOINT: %s - %s (%d%%)\n", b.Task, b.Status, b.Progress)
	t.publish()
	if s.lastAsked {
		s.lastAsked = false
		s.g.answered <- name
	}
	if b.Status != protocol.StatusComplete && b.Status != protocol.StatusAwaitingVerification {
		return false
	}
	return s.verify()
}

// checkpointOf builds the record of a block (DESIGN §5 fields).
func (s *session) checkpointOf(b protocol.Block, trigger string) *store.Checkpoint {
	t := s.a.team
	now := t.clock.Now().UTC()
	next := now.Add(t.cfg.CheckpointInterval)
	if s.taskStarted.IsZero() {
		// When work on the task began: the previous checkpoint's, read once
		// a session rather than on every checkpoint.
		s.taskStarted = s.started.UTC()
		if prev, _ := t.store.Load(s.a.cfg.Name, b.Task); prev != nil && !prev.StartedAt.IsZero() {
			s.taskStarted = prev.StartedAt
		}
	}
	started := s.taskStarted
	cp := &store.Checkpoint{
		CheckpointID: fmt.Sprintf("%s-%s-%s", s.a.cfg.Name, b.Task, now.Format("20060102T150405.000000000Z")),
		Agent:        s.a.cfg.Name, TaskID: b.Task, TaskTitle: s.task.Title, SessionID: s.id,
		Attempt: s.attempt, Trigger: trigger, Status: b.Status, ProgressPercent: b.Progress,
		Completed: b.Completed, Remaining: b.Remaining, FilesModified: b.FilesModified,
		Blockers: b.Blockers, Notes: b.Notes, ResumeInstructions: b.Resume,
		Resumable: b.Status != protocol.StatusComplete, StartedAt: started, UpdatedAt: now,
		NextCheckpointExpected: &next, Git: gitInfo(s.a.cfg.Dir),
	}
	if b.Status == protocol.StatusComplete {
		cp.CompletedAt = &now
	}
	return cp
}

// verify runs the task's verify command: a pass completes the task, a failure
// sends the output back to the agent. It reports whether the task is done.
func (s *session) verify() bool {
	t, name, task := s.a.team, s.a.cfg.Name, s.task
	result := "none"
	if len(task.Verify) > 0 {
		t.queue.Set(task.ID, TaskVerifying, "")
		t.publish()
		ctx, cancel := s.g.stopCtx()
		v := runVerify(ctx, task.Verify, s.a.cfg.Dir)
		cancel()
		result = v.summary
		t.queue.Verified(task.ID, v.summary)
		if !v.passed {
			s.a.log.Warn("verify failed", "task", task.ID, "result", v.summary)
			t.events.Emit(EvTaskVerifyFailed, name, task.ID, "verify", strings.Join(task.Verify, " "), "result", v.summary)
			t.printf("VERIFY FAILED: %s - %s\n", task.ID, v.summary)
			t.queue.Set(task.ID, TaskRunning, "")
			s.a.feedback = v.feedback(task.ID, task.Verify)
			s.typeText(s.a.feedback)
			t.publish()
			return false
		}
	}
	s.a.feedback = ""
	if err := t.store.Archive(name, task.ID); err != nil {
		s.a.log.Error("completed checkpoint not archived", "task", task.ID, "error", err)
	}
	t.queue.Set(task.ID, TaskComplete, "")
	t.events.Emit(EvTaskCompleted, name, task.ID, "verify", result)
	t.printf("TASK COMPLETE: %s (%s) verify: %s\n", task.ID, task.Title, result)
	t.publish()
	return true
}
