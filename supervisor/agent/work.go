package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/workspace"
)

// gitTimeout bounds the git work around one task (worktree, commit, merge).
const gitTimeout = 2 * time.Minute

// workDir is where the agent works on task: its dir, or the task's own
// worktree. A conflict between the branches of the tasks it depends on
// leaves the task blocked (task_blocked, with the paths); another failure
// fails it. ok is false then: the agent is free for another task.
func (a *Agent) workDir(g *Generation, task *config.Task) (dir string, ts *TaskSpace, ok bool) {
	if a.d.Workspaces == nil || isReview(task) { // a reviewer reviews from its own dir
		return a.cfg.Dir, nil, true
	}
	ctx, cancel := g.StopCtx()
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, gitTimeout)
	defer cancelT()
	dir, ts, err := a.d.Workspaces.Dir(ctx, &a.cfg, task)
	var conflict *workspace.ConflictError
	var refused *workspace.RefusedError
	switch {
	case err == nil:
		if ts != nil {
			a.d.Queue.SetWorkspace(task.ID, ts.Worktree.Branch, ts.Base, ts.Repo.Root)
			a.log.Info("task works in its worktree", "task", task.ID, "branch", ts.Worktree.Branch, "reused", ts.Worktree.Reused)
		}
		return dir, ts, true
	case errors.As(err, &conflict):
		reason := fmt.Sprintf("the branches it starts from conflict (%s)", strings.Join(conflict.Paths, ", "))
		a.log.Error("task blocked", "task", task.ID, "reason", reason)
		a.d.Queue.Hold(task.ID, reason)
		a.d.Events.Emit(event.TaskBlocked, a.cfg.Name, task.ID, "reason", reason, "paths", conflict.Paths)
		a.d.Team.Printf(a.cfg.Name, "WARNING: %s is blocked: %s\n", task.ID, reason)
	case errors.As(err, &refused): // a link where the worktree was, a .git not warden's
		a.refuseWorktree(task, refused)
	case g.IsStopping():
		a.d.Queue.Release(task.ID)
	default:
		a.failTask(task, "its worktree could not be made: "+err.Error())
	}
	a.d.Team.Publish()
	return "", nil, false
}

// commit commits the worktree after a checkpoint was recorded (in the
// background: the record is never delayed) and notes the commit in the
// record.
func (r *reporter) commit(cp *protocol.Checkpoint) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	commit, made, err := r.ts.Commit(ctx, cp.TaskID, cp.Status, cp.ProgressPercent, cp)
	r.committed(cp, commit, made, err)
}

// committed reports a commit of the task's work.
func (r *reporter) committed(cp *protocol.Checkpoint, commit string, made bool, err error) {
	a, task := r.a, r.task.ID
	switch {
	case err != nil:
		a.log.Error("work not committed", "task", task, "error", err)
		r.Printf("WARNING: %s's work on %s not committed: %v\n", a.cfg.Name, task, err)
	case made:
		a.d.Events.Emit(event.WorkCommitted, a.cfg.Name, task, "branch", r.ts.Worktree.Branch, "commit", commit)
		if cp != nil {
			if err := a.d.Store.NoteCommit(a.cfg.Name, task, cp.CheckpointID, commit); err != nil {
				a.log.Warn("commit not noted in the checkpoint", "task", task, "error", err)
			}
		}
	}
}

// commitNow commits the task's worktree now (a task going into review:
// its diff is its branch's commits).
func (r *reporter) commitNow() {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	commit, made, err := r.ts.Commit(ctx, r.task.ID, protocol.StatusComplete, 100, nil)
	r.committed(nil, commit, made, err)
}

// completeWork commits a completed task's work, then, with merge = "ff",
// fast-forwards base to its branch when it can (a WARNING and an event when
// it cannot).
func (r *reporter) completeWork() {
	if r.ts == nil {
		return
	}
	a, ts, task := r.a, r.ts, r.task.ID
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	commit, made, err := ts.Commit(ctx, task, protocol.StatusComplete, 100, nil)
	r.committed(nil, commit, made, err)
	if a.d.Config.Merge != config.MergeFF || r.task.Lands != "" { // a land task lands with the land
		return
	}
	if err := ts.Repo.FastForward(ctx, ts.Base, ts.Worktree.Branch); err != nil {
		a.log.Warn("branch not merged", "task", task, "error", err, console.Printed, true)
		a.d.Events.Emit(event.MergeRefused, a.cfg.Name, task, "branch", ts.Worktree.Branch, "base", ts.Base, "reason", err.Error())
		r.Printf("WARNING: %s's branch %s not fast-forwarded into %s: %v\n", task, ts.Worktree.Branch, ts.Base, err)
		return
	}
	a.d.Events.Emit(event.WorkMerged, a.cfg.Name, task, "branch", ts.Worktree.Branch, "base", ts.Base)
	r.Printf("MERGED: %s (%s fast-forwarded into %s)\n", task, ts.Worktree.Branch, ts.Base)
}

// CommitAll commits every open task's worktree (a team checkpoint, after
// the agents stopped, before the handoff; and --resume, before any session
// starts), waiting for commits in flight first. status says what each task's
// queue state is. It returns the tasks whose work could not be committed.
func (w *Workspaces) CommitAll(ctx context.Context, tasks []queue.Status, emit func(task, branch, commit string)) []string {
	w.gate.Lock()
	defer w.gate.Unlock()
	w.inflight.Wait()
	var failed []string
	for _, t := range tasks {
		ts := w.Space(t.ID)
		if ts == nil || t.State == queue.Complete {
			continue
		}
		status := t.Summary
		if status == "" {
			status = protocol.StatusImplementing
		}
		commit, made, err := ts.Commit(ctx, t.ID, status, t.Progress, nil)
		switch {
		case err != nil:
			failed = append(failed, t.ID+": "+err.Error())
		case made:
			emit(t.ID, ts.Worktree.Branch, commit)
		}
	}
	return failed
}
