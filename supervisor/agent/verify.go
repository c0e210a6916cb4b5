package agent

import (
	"context"
	"strings"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/session"
)

// A task's verify runs off the session's loop: the record that says the
// task is done starts it on a goroutine of its own and the session goes on
// (answers recorded, dialogs seen, timers judged); the verdict comes back
// to the session as an event (session.Verified). One verify at a time: an
// answer that says done again while one runs is recorded, and the verify
// under way answers it too. The team's last call kills the verify's process
// group (queue.Verify); the task is then neither complete nor failed.

// stoppedByTeam is the verify result of a verify the team's stop ended.
const stoppedByTeam = "stopped: the team checkpoint began"

// startVerify completes the task of cp, a record that says it is done, at
// once when it has no verify; else it starts the verify off the loop
// (unless one runs already) and answers Verifying. r.mu is held.
func (r *reporter) startVerify(cp *protocol.Checkpoint) session.Verdict {
	a, d, task := r.a, r.a.d, r.task
	switch {
	case len(task.Verify) == 0:
		r.complete(cp, "none")
		return session.Verdict{Saved: true, Done: true}
	case r.verifying != nil:
		a.log.Info("the task's verify already runs: it answers this record too", "task", task.ID,
			"checkpoint_id", cp.CheckpointID, "verifying", r.verifying.CheckpointID)
		return session.Verdict{Saved: true, Verifying: true}
	case r.g.IsStopping():
		// The team's last call: no verify starts now (it would be killed at
		// once); the task carries on in the next session. A verify the
		// stop ended keeps saying so.
		if !r.verifyStopped {
			d.Queue.Verified(task.ID, "not run: the team checkpoint began")
			d.Team.Publish()
		}
		return session.Verdict{Saved: true}
	}
	c := *cp
	r.verifying, r.verified = &c, make(chan struct{})
	d.Queue.Set(task.ID, queue.Verifying, "")
	d.Team.Publish()
	a.log.Info("verify started", "task", task.ID, "verify", strings.Join(task.Verify, " "), "checkpoint_id", cp.CheckpointID)
	ctx, cancel := r.g.StopCtx()
	go r.runVerify(ctx, cancel, r.verified)
	return session.Verdict{Saved: true, Verifying: true}
}

// runVerify runs the task's verify command in the session's dir (a process
// group of its own, killed when it ends or the team stops) and hands the
// verdict to the session; done is closed once the verdict is acted on.
func (r *reporter) runVerify(ctx context.Context, cancel context.CancelFunc, done chan struct{}) {
	defer close(done)
	v := r.a.d.verify(ctx, r.task.Verify, r.dir)
	stopped := ctx.Err() != nil
	cancel()
	verdict := r.judge(v, stopped)
	r.s.Verified(verdict)
}

// judge acts on a verify's result: a pass completes the task with the
// record that was verified; a failure sends the task back to the agent
// with the command's output (typed now, and in the next first prompt); a
// verify the team stopped is neither.
func (r *reporter) judge(v queue.VerifyResult, stopped bool) session.Verdict {
	a, d, task := r.a, r.a.d, r.task
	r.mu.Lock()
	defer r.mu.Unlock()
	cp := r.verifying
	r.verifying = nil
	switch {
	case stopped:
		r.verifyStopped = true
		a.log.Info("verify stopped: the team checkpoint began", "task", task.ID)
		d.Queue.Verified(task.ID, stoppedByTeam)
		d.Team.Publish()
		return session.Verdict{}
	case !v.Passed:
		a.log.Warn("verify failed", "task", task.ID, "result", v.Summary)
		d.Queue.Verified(task.ID, v.Summary)
		r.Event(event.TaskVerifyFailed, "verify", strings.Join(task.Verify, " "), "result", v.Summary)
		r.Printf("VERIFY FAILED: %s - %s\n", task.ID, v.Summary)
		d.Queue.Set(task.ID, queue.Running, "")
		feedback := v.Feedback(task.ID, task.Verify)
		a.setFeedback(feedback)
		d.Team.Publish()
		return session.Verdict{Feedback: feedback}
	}
	d.Queue.Verified(task.ID, v.Summary)
	r.complete(cp, v.Summary)
	return session.Verdict{Done: true}
}

// complete completes the task with cp, the record that said it is done:
// its work committed (and merged with merge = "ff"), the record archived as
// {agent}-{task}-complete.json — saved again first when the agent recorded
// more while its verify ran, so that the archive is the record that was
// verified —, task_completed and TASK COMPLETE. r.mu is held.
//
// A task with a reviewer goes into review instead (review.go); a review
// round's answer is taken as one (reviewAnswered).
func (r *reporter) complete(cp *protocol.Checkpoint, result string) {
	switch {
	case isReview(r.task):
		r.reviewAnswered(cp)
	case r.a.d.reviewed(r.task):
		r.toReview(cp, result)
	default:
		r.finish(cp, result)
	}
}

// finish completes the task for good (complete's doc); kv are more
// fields of task_completed. r.mu is held, or r is the author's reporter
// the review made (review.go).
func (r *reporter) finish(cp *protocol.Checkpoint, result string, kv ...any) {
	a, d, task := r.a, r.a.d, r.task
	r.completed = true
	a.setFeedback("")
	r.completeWork()
	if latest, _ := d.Store.Load(a.cfg.Name, task.ID); latest == nil || latest.CheckpointID != cp.CheckpointID {
		cp.UpdatedAt = d.Clock.Now().UTC()
		if err := d.Store.Save(cp); err != nil {
			a.log.Error("verified checkpoint not saved again", "task", task.ID, "checkpoint_id", cp.CheckpointID, "error", err)
		}
	}
	if err := d.Store.Archive(a.cfg.Name, task.ID); err != nil {
		a.log.Error("completed checkpoint not archived", "task", task.ID, "error", err)
	}
	d.Queue.Set(task.ID, queue.Complete, "")
	d.Events.Emit(event.TaskCompleted, a.cfg.Name, task.ID, append([]any{"verify", result, "checkpoint_id", cp.CheckpointID}, kv...)...)
	r.Printf("TASK COMPLETE: %s verify: %s\n", titled(task), result)
	d.Team.Publish()
}

// awaitVerify waits for a verify still running when the session ended (the
// agent exited, stalled or was restarted meanwhile: its verdict still
// lands) and reports whether the task is complete.
func (r *reporter) awaitVerify() bool {
	r.mu.Lock()
	done, running := r.verified, r.verifying != nil
	r.mu.Unlock()
	if done != nil {
		if running {
			r.a.log.Info("the session ended while its task's verify runs: waiting for the verdict", "task", taskID(r.task))
		}
		<-done
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.completed
}
