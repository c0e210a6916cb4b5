package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/agent"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/supervisor/workspace"
)

// Resume prepares a run that continues a team whose supervisor died
// (`warden run --resume`): it kills what the dead supervisor left running,
// marks the tasks it completed as complete, and lets every open task resume
// from its last checkpoint — unless that checkpoint's dir or git branch is
// gone: then the task starts afresh from its prompt, told what could not be
// resumed, with a WARNING. Call it before Run.
func (t *Team) Resume() error {
	t.resumeFrom = time.Time{}
	prev, err := state.ReadSnapshot(t.dir.Root)
	if os.IsNotExist(errors.Unwrap(err)) {
		t.log.Warn("nothing to resume: no state.json, starting the team from its checkpoints")
		prev = &state.Snapshot{}
	} else if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	if prev.Pid != 0 && prev.Pid != os.Getpid() && alive(prev.Pid) {
		// We hold the team's lock, so the process with that pid is not this
		// team's supervisor (a crafted or copied state.json, or the pid
		// reused): what it started is not ours to kill.
		t.log.Warn("the supervisor pid in state.json belongs to a live process: nothing of it is touched", "pid", prev.Pid)
		t.printf("WARNING: state.json names pid %d, a live process that is not this team's supervisor: nothing of it is killed\n", prev.Pid)
	} else if prev.Pid != 0 && prev.Pid != os.Getpid() {
		ctx, cancel := context.WithTimeout(context.Background(), t.cfg.ShutdownTimeout)
		killed, err := runner.KillLeftovers(ctx, prev.Pid)
		cancel()
		if err != nil {
			t.log.Error("leftover processes of the dead supervisor not all killed", "error", err)
		}
		if len(killed) > 0 {
			t.log.Warn("killed processes the dead supervisor left behind", "supervisor_pid", prev.Pid, "pids", killed)
			t.events.Emit(event.AgentForceTerminated, "", "", "reason", "left behind by a dead supervisor",
				"supervisor_pid", prev.Pid, "pids", killed)
		}
	}
	complete, err := t.store.CompletedTasks()
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	for _, ts := range prev.Tasks {
		complete[ts.ID] = complete[ts.ID] || ts.State == queue.Complete
	}
	for _, ts := range t.queue.Snapshot() {
		if complete[ts.ID] {
			t.queue.Set(ts.ID, queue.Complete, "completed before the supervisor died")
			continue
		}
		cp := t.store.Latest(ts.ID, time.Time{})
		if cp == nil {
			continue
		}
		if why := t.unresumable(cp); why != "" {
			t.log.Warn("task cannot resume from its checkpoint: starting it afresh", "task", ts.ID, "reason", why)
			t.printf("WARNING: %s cannot resume (%s): it starts afresh from its prompt\n", ts.ID, why)
			t.events.Emit(event.TaskAfresh, cp.Agent, ts.ID, "reason", why, "checkpoint_id", cp.CheckpointID)
			t.queue.StartAfresh(ts.ID, fmt.Sprintf("An earlier session of this task left a checkpoint at %d%% that could not be "+
				"resumed: %s. Start the task afresh; check what the earlier session may have left behind before you redo it.",
				cp.ProgressPercent, why), t.clock.Now())
			continue
		}
		t.queue.Prefer(ts.ID, cp.Agent)
		t.queue.Progress(ts.ID, agent.QueueCheckpoint(cp))
	}
	t.recoverWork()
	t.log.Info("resuming team", "previous_supervisor", prev.Pid, "open_tasks", t.queue.OpenCount())
	return nil
}

// unresumable says why a checkpoint cannot be resumed, or "".
func (t *Team) unresumable(cp *protocol.Checkpoint) string {
	var dir string
	for _, a := range t.cfg.Agents {
		if a.Name == cp.Agent {
			dir = a.Dir
		}
	}
	if dir == "" {
		return fmt.Sprintf("its agent %q is no longer in the team", cp.Agent)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Sprintf("the agent's dir %s no longer exists", dir)
	}
	if cp.Git != nil && cp.Git.Branch != "" && cp.Git.Branch != "HEAD" {
		if !workspace.BranchExists(dir, cp.Git.Branch) {
			return fmt.Sprintf("its git branch %q is gone", cp.Git.Branch)
		}
	}
	return ""
}

// ResumeFromCheckpoint makes the task of history record id resume from that
// record (`warden run --resume --from ID`): later records of the task are
// not offered, a task that completed since is open again. Call it after
// Resume.
func (t *Team) ResumeFromCheckpoint(id string) error {
	cp, err := state.FindRecord(t.dir.Root, id)
	if err != nil {
		return fmt.Errorf("resume --from: %w", err)
	}
	found := false
	for _, ts := range t.queue.Snapshot() {
		found = found || ts.ID == cp.TaskID
	}
	if !found {
		return fmt.Errorf("resume --from: checkpoint %s is of task %q, which the team file no longer has", id, cp.TaskID)
	}
	t.queue.Set(cp.TaskID, queue.Pending, "")
	t.queue.StartAfresh(cp.TaskID, "", t.clock.Now())
	t.queue.Prefer(cp.TaskID, cp.Agent)
	t.queue.Progress(cp.TaskID, agent.QueueCheckpoint(cp))
	t.pinned.Store(cp.TaskID, cp)
	t.log.Info("task resumes from an earlier checkpoint", "task", cp.TaskID, "checkpoint_id", id)
	t.printf("RESUMING: %s from checkpoint %s (%s, %d%%)\n", cp.TaskID, id, cp.Status, cp.ProgressPercent)
	return nil
}

// pinnedCheckpoint is the record --from chose for task, or nil.
func (t *Team) pinnedCheckpoint(task string) *protocol.Checkpoint {
	if v, ok := t.pinned.Load(task); ok {
		return v.(*protocol.Checkpoint)
	}
	return nil
}

// recoverWork commits what the agents of a dead supervisor wrote in their
// tasks' worktrees and never saw committed (kill -9): every open task whose
// worktree is there is taken up again and committed before any session
// starts.
func (t *Team) recoverWork() {
	ws := t.deps.Workspaces
	if ws == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, ts := range t.queue.Snapshot() {
		if ts.State == queue.Complete || ts.State == queue.Failed {
			continue
		}
		path, err := t.dir.Worktree(ts.ID)
		if err != nil {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			continue
		}
		task, _ := t.cfg.Task(ts.ID)
		for i := range t.cfg.Agents {
			a := &t.cfg.Agents[i]
			if task == nil || (task.Agent != "" && task.Agent != a.Name) || t.cfg.Workspace(a) != config.WorkspaceWorktree {
				continue
			}
			if _, space, err := ws.Dir(ctx, a, task); err == nil && space != nil {
				t.queue.SetWorkspace(ts.ID, space.Worktree.Branch, space.Base, space.Repo.Root)
			} else if err != nil {
				t.log.Warn("worktree of a task not taken up again", "task", ts.ID, "error", err)
			}
			break
		}
	}
	t.commitWork("the resume")
}

// alive reports whether a process with that pid runs now.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
