package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/agent"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/supervisor/workspace"
)

// carryOn continues the run prev names (a run that did not finish, or
// --resume): it trusts only that run's records. The tasks it completed or
// failed stay so; every open task resumes from its newest record of the
// run — unless that record's dir or git branch is gone: then it starts
// afresh from its prompt, told what could not be resumed, with a WARNING.
// What the team file changed since is taken as it now is, a line each.
func (t *Team) carryOn(prev *state.Snapshot) (Beginning, error) {
	t.thisRun = runInfo{id: prev.RunID, started: prev.RunStartedAt, specs: t.taskSpecs()}
	carry := state.CarryOn{At: t.clock.Now()}
	if t.thisRun.started.IsZero() {
		t.thisRun.started = prev.StartedAt
	}
	t.store.SetRun(t.thisRun.id)
	t.deps.RunID = t.thisRun.id
	how := "stopped" + ended(prev)
	if prev.Ended == "" {
		how = "its supervisor died; last update" + ended(prev)
	}
	carry.After = how
	// What can fail fails before anything is printed or logged: the
	// records are read once here, and again once the spool's are in.
	proven, err := t.store.CompletedTasks(t.thisRun.id)
	if err != nil {
		return Beginning{}, fmt.Errorf("carrying on run %s: %w", t.thisRun.id, err)
	}
	// The first line says what is carried on — the tasks complete by
	// warden's own archives, never by state.json's word —; what follows
	// says what the carrying on found.
	n := 0
	for _, ts := range prev.Tasks {
		if proven[ts.ID] {
			n++
		}
	}
	taken := t.takeBack(prev) // holder = true: the sessions the holder still holds (takeback.go)
	upgraded := false
	if why, ok := t.upgradeCarry(&carry, taken); ok { // `warden upgrade` exec'd this binary (upgrade.go)
		how, upgraded = why, true
		carry.After = how
	}
	t.printf("CARRYING ON: run %s (started %s, %s): %d of %s complete%s; `warden run --fresh` starts over instead\n",
		t.thisRun.id, t.thisRun.started.Local().Format("2006-01-02 15:04"), how, n, plural(len(prev.Tasks), "task"), takenLine(taken))
	if t.store.KeyLost(t.thisRun.id) {
		t.log.Error("the key that sealed the run's records is gone: none of them is trusted", "key", t.keyPath)
		t.printf("WARNING: no record of run %s is sealed with the key at %s: the key that sealed them is gone (made anew, "+
			"or another); none of them is trusted, and its tasks go on from their prompts — put the old key back and run again "+
			"to carry the run on from its records\n", t.thisRun.id, t.keyPath)
	}
	t.store.OnUntrusted = t.untrustedRecord
	t.sealLegacy()
	for _, d := range state.Differences(prev.Specs, teamTasks(t.cfg)) {
		t.log.Warn("team file changed since the run began", "change", d, console.Printed, true)
		t.printf("TEAM FILE: %s\n", d)
	}
	t.replaySpool(true)

	complete, err := t.store.CompletedTasks(t.thisRun.id)
	if err != nil {
		return Beginning{}, fmt.Errorf("carrying on run %s: %w", t.thisRun.id, err)
	}
	t.restoreLandTasks() // land_by's land tasks go on with the rest (landrun.go)
	was := map[string]queue.Status{}
	for _, ts := range prev.Tasks {
		was[ts.ID] = ts
	}
	for _, ts := range t.queue.Snapshot() {
		old, known := was[ts.ID]
		if known {
			t.queue.Restore(ts.ID, old.Attempt, old.Owner, time.Duration(old.WorkedSeconds*float64(time.Second)))
			if old.Branch != "" && t.deps.Workspaces != nil {
				// Its branch, kept for the land: a task complete before
				// warden died is not worked again, and would land nothing.
				t.queue.SetWorkspace(ts.ID, old.Branch, old.Base, old.Repo)
			}
		}
		switch {
		case known && old.State == queue.Failed:
			// Failed is the run's last word on a task: one that completed,
			// was reopened with --from and then failed keeps its complete
			// archive, which must not make it complete again.
			t.queue.Set(ts.ID, queue.Failed, old.Reason)
			why := ""
			if old.Reason != "" {
				why = " (" + old.Reason + ")"
			}
			t.printf("WARNING: %s failed earlier in this run%s: it stays failed; `warden run --resume --from ID` retries it from a checkpoint\n", ts.ID, why)
			continue
		case complete[ts.ID]:
			t.queue.Set(ts.ID, queue.Complete, "completed earlier in this run")
			continue
		}
		cp := t.store.Latest(ts.ID, t.thisRun.id, time.Time{})
		if cp == nil {
			continue
		}
		if why := t.unresumable(cp); why != "" {
			t.log.Warn("task cannot resume from its checkpoint: starting it afresh", "task", ts.ID, "reason", why, console.Printed, true)
			t.printf("WARNING: %s cannot resume (%s): it starts afresh from its prompt\n", ts.ID, why)
			t.events.Emit(event.TaskAfresh, cp.Agent, ts.ID, "reason", why, "checkpoint_id", cp.CheckpointID)
			t.queue.StartAfresh(ts.ID, fmt.Sprintf("An earlier session of this task left a checkpoint at %d%% that could not be "+
				"resumed: %s. Start the task afresh; check what the earlier session may have left behind before you redo it.",
				cp.ProgressPercent, why), t.clock.Now())
			continue
		}
		if known && old.ReviewRound > 0 { // its review rounds go on where they were (review_by)
			inReview := old.State == queue.Reviewing
			t.queue.RestoreReview(ts.ID, old.ReviewRound, old.Owner, inReview, old.Findings)
			if inReview {
				t.queue.Verified(ts.ID, old.Verify) // what its verify said before the review
				t.printf("%s is still in review (round %d, by %s): the round is asked again\n", ts.ID, old.ReviewRound, old.Reviewer)
			}
		}
		t.queue.Prefer(ts.ID, cp.Agent)
		t.queue.Progress(ts.ID, agent.QueueCheckpoint(cp))
		carry.Resumed = append(carry.Resumed, state.ResumedFrom{Task: ts.ID, Agent: cp.Agent, CheckpointID: cp.CheckpointID,
			Progress: cp.ProgressPercent, Status: cp.Status, UpdatedAt: cp.UpdatedAt})
	}
	t.thisRun.carried = append(slices.Clone(prev.CarriedOn), carry)
	t.carrySpend(prev) // tokens and dollars, and the budget as a person left it (spend.go)
	t.recoverWork()
	t.log.Info("carrying on the run", "run_id", t.thisRun.id, "previous_supervisor", prev.Pid, "open_tasks", t.queue.OpenCount())
	switch {
	case upgraded:
		from, to := t.upgradedFrom()
		t.events.Emit(event.RunStarted, "", "", "run_id", t.thisRun.id, "how", "upgraded", "previous_run", t.thisRun.id, "reason", how,
			"agents", takenNames(taken), "from", from, "to", to)
	case len(taken) > 0:
		t.events.Emit(event.RunStarted, "", "", "run_id", t.thisRun.id, "how", "readopted", "previous_run", t.thisRun.id, "reason", how,
			"agents", takenNames(taken))
	default:
		t.events.Emit(event.RunStarted, "", "", "run_id", t.thisRun.id, "how", "carried_on", "previous_run", t.thisRun.id, "reason", how)
	}
	return Beginning{RunID: t.thisRun.id, CarriedOn: true}, nil
}

// sealLegacy seals the records of the run carried on when an older warden
// wrote them all (state.Store.SealLegacy): trusted as that warden trusted
// them, to resume from — an archive of a completed task too, which is no
// proof of completion: the task's verify decides again.
func (t *Team) sealLegacy() {
	n, reopened, err := t.store.SealLegacy(t.thisRun.id)
	if err != nil {
		t.log.Error("records of an older warden not all sealed", "error", err)
		t.printf("WARNING: records of run %s not all sealed (%v): those left are not trusted\n", t.thisRun.id, err)
	}
	if n == 0 {
		return
	}
	t.log.Info("records of an older warden sealed", "run_id", t.thisRun.id, "records", n, "tasks_verified_again", reopened)
	again := ""
	if len(reopened) > 0 {
		slices.Sort(reopened)
		reopened = slices.Compact(reopened) // one task, archived by two agents
		again = fmt.Sprintf("; an older warden's archive proves no completion: %s resume from it and are verified again",
			strings.Join(reopened, ", "))
	}
	are := "its " + plural(n, "record") + " are sealed as they are"
	if n == 1 {
		are = "its 1 record is sealed as it is"
	}
	t.printf("SEALED: run %s was written by an older warden: %s%s\n", t.thisRun.id, are, again)
}

// killLeftovers kills what the supervisor of prev left running, when it
// died (found by the runner tag its agents and their descendants inherit).
func (t *Team) killLeftovers(prev *state.Snapshot) {
	if prev == nil || prev.Pid == 0 || prev.Pid == os.Getpid() {
		return
	}
	if alive(prev.Pid) {
		// We hold the team's lock, so the process with that pid is not this
		// team's supervisor (a crafted or copied state.json, or the pid
		// reused): what it started is not ours to kill.
		t.log.Warn("the supervisor pid in state.json belongs to a live process: nothing of it is touched", "pid", prev.Pid, console.Printed, true)
		t.printf("WARNING: state.json names pid %d, a live process that is not this team's supervisor: nothing of it is killed\n", prev.Pid)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), t.cfg.ShutdownTimeout)
	killed, err := runner.KillLeftovers(ctx, prev.Pid)
	// Its boxes: what its agents left with their environment cleared, or
	// reparented to init, is found there and nowhere else.
	if boxes, berr := t.killStaleBoxes(ctx, prev.Pid); berr != nil || boxes > 0 {
		t.log.Warn("killed the boxes the dead supervisor left", "supervisor_pid", prev.Pid, "boxes", boxes, "error", berr)
	}
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
	// A record with no head was taken on a branch with no commit yet (a
	// new repository): unborn, not gone — there is nothing it could lose.
	if cp.Git != nil && cp.Git.Branch != "" && cp.Git.Branch != "HEAD" && cp.Git.Head != "" {
		if !workspace.BranchExists(dir, cp.Git.Branch) {
			return fmt.Sprintf("its git branch %q is gone", cp.Git.Branch)
		}
	}
	return ""
}

// ErrNotATaskRecord is ResumeFrom's refusal of a record that is not of a
// task of the team file's own work: a review round's answer, a land task's.
var ErrNotATaskRecord = errors.New("--from takes a record of a task of the team file")

// ResumeFrom chooses history record id for its task to resume from
// (`warden run --resume --from ID`). Call it before Begin: an id the
// history does not hold, or a record whose task the team file no longer
// has, is an error before anything is printed or logged, and the run is
// left as it was. Begin, once the run is carried on, makes the task resume
// from that record (pin).
func (t *Team) ResumeFrom(id string) error {
	cp, err := t.store.Record(id)
	if err != nil {
		return fmt.Errorf("resume --from: %w", err)
	}
	if !slices.ContainsFunc(teamTasks(t.cfg), func(task config.Task) bool { return task.ID == cp.TaskID }) {
		if task, round, ok := config.ParseReviewID(cp.TaskID); ok {
			return fmt.Errorf("resume --from: checkpoint %s is %s's answer to review round %d of task %q, not a record of "+
				"the task's own work (`warden checkpoints %s` lists those): %w", id, cp.Agent, round, task, task, ErrNotATaskRecord)
		}
		if strings.HasPrefix(cp.TaskID, config.LandPrefix) {
			return fmt.Errorf("resume --from: checkpoint %s is of land task %q, which the land makes again where it stops, "+
				"not a task of the team file: %w", id, cp.TaskID, ErrNotATaskRecord)
		}
		return fmt.Errorf("resume --from: checkpoint %s is of task %q, which the team file no longer has", id, cp.TaskID)
	}
	t.from = cp
	return nil
}

// pin makes the task of cp, the record ResumeFrom chose, resume from it:
// later records of the task are not offered, a task that completed since
// is open again (its next record, newer than the archive, reopens it for
// good).
func (t *Team) pin(cp *protocol.Checkpoint) {
	was := ""
	for _, ts := range t.queue.Snapshot() {
		if ts.ID == cp.TaskID {
			was = string(ts.State)
		}
	}
	t.queue.Set(cp.TaskID, queue.Pending, "")
	t.queue.StartAfresh(cp.TaskID, "", t.clock.Now())
	t.keepReopened(cp)
	t.queue.Prefer(cp.TaskID, cp.Agent)
	t.queue.Progress(cp.TaskID, agent.QueueCheckpoint(cp))
	t.pinned.Store(cp.TaskID, cp)
	of := "this run"
	if cp.RunID != t.thisRun.id {
		of = "an earlier run, " + cp.RunID
		if cp.RunID == "" {
			of = "an earlier run"
		}
	}
	t.log.Info("task resumes from an earlier checkpoint", "task", cp.TaskID, "checkpoint_id", cp.CheckpointID, "of_run", cp.RunID)
	t.events.Emit(event.TaskReopened, cp.Agent, cp.TaskID, "checkpoint_id", cp.CheckpointID, "of_run", cp.RunID, "was", was)
	t.printf("RESUMING: %s from checkpoint %s (%s, %d%%, of %s)\n", cp.TaskID, cp.CheckpointID, cp.Status, cp.ProgressPercent, of)
}

// keepReopened writes the reopening down: the record it resumes from,
// saved again now as a record of this run, newer than the task's complete
// archive — so that a carry-on before the task's next record keeps it
// open, instead of taking the archive as the task's last word (the
// simulation's seed 1011399: --from reopened T5, the run ended at its
// budget at once, and the next `warden run` made T5 complete again with
// no task_completed).
func (t *Team) keepReopened(cp *protocol.Checkpoint) {
	re := *cp
	re.UpdatedAt = t.clock.Now()
	re.CheckpointID = protocol.RecordID(cp.Agent, cp.TaskID, re.UpdatedAt)
	if err := t.store.Save(&re); err != nil {
		t.log.Warn("the reopening not written: a carry-on before the task's next record may count it complete", "task", cp.TaskID, "error", err)
	}
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
		a, task := t.worktreeAgent(ts.ID)
		if a == nil {
			continue
		}
		if _, space, err := ws.Dir(ctx, a, task); err == nil && space != nil {
			t.queue.SetWorkspace(ts.ID, space.Worktree.Branch, space.Base, space.Repo.Root)
		} else if err != nil {
			t.log.Warn("worktree of a task not taken up again", "task", ts.ID, "error", err)
		}
	}
	t.commitWork("the resume")
}

// retireWorktrees puts the worktrees and branches an earlier run (old: its
// id, "" when unknown) left for the team's tasks aside: committed, the
// worktree removed, the branch renamed {branch}.run-{old}. A new run's
// tasks start from base.
func (t *Team) retireWorktrees(old string) {
	ws := t.deps.Workspaces
	if ws == nil {
		return
	}
	if old == "" {
		old = "before-" + t.thisRun.id
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, ts := range t.queue.Snapshot() {
		a, task := t.worktreeAgent(ts.ID)
		if a == nil {
			continue
		}
		r, ok, err := ws.Retire(ctx, a, task, old)
		switch {
		case err != nil:
			t.log.Error("an earlier run's worktree not put aside", "task", ts.ID, "error", err)
			t.printf("WARNING: the earlier run's worktree of %s not put aside (%v): the task works on it as it is\n", ts.ID, err)
		case ok:
			t.log.Info("an earlier run's branch kept as history", "task", ts.ID, "branch", r.Branch, "commit", r.Commit)
			t.printf("NEW RUN: %s starts from base; the earlier run's work on it is on branch %s\n", ts.ID, r.Branch)
			if r.Commit != "" {
				t.events.Emit(event.WorkCommitted, "", ts.ID, "branch", r.Branch, "commit", r.Commit, "when", "the new run")
			}
		}
	}
}

// worktreeAgent is the first worktree-mode agent that may take task id,
// and the task; nil when none may.
func (t *Team) worktreeAgent(id string) (*config.Agent, *config.Task) {
	task, _ := t.cfg.Task(id)
	if task == nil {
		return nil, nil
	}
	for i := range t.cfg.Agents {
		a := &t.cfg.Agents[i]
		if (task.Agent == "" || task.Agent == a.Name) && t.cfg.Workspace(a) == config.WorkspaceWorktree {
			return a, task
		}
	}
	return nil, nil
}

// alive reports whether a process with that pid runs now.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
