package supervisor

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/wardenhq/warden/handoff"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/agent"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// trigger is why a team checkpoint runs.
type trigger struct {
	source string // signal_file, signal, lead, budget, usage_limit, failure
	cause  string // protocol.Cause*
	reason string
	lead   string // the agent that printed CHECKPOINT COMPLETE
	now    bool   // warden stop --now: no last checkpoint requests
}

// trigger asks for a team checkpoint; one already pending folds it in.
func (t *Team) trigger(tr trigger) {
	select {
	case t.triggers <- tr:
	default:
	}
}

// teamCheckpoint runs the sequence of DESIGN §6 on generation g, top to
// bottom, as hivemind's stop does: the last call and its answers, then
// every agent stopped at once on one deadline, then the handoff. It
// returns the handoff's text, or an error when the handoff could not be
// written (then there is no CHECKPOINT COMPLETE and the signal file stays).
// done closes when every agent of g has returned.
func (t *Team) teamCheckpoint(g *agent.Generation, tr trigger, done <-chan struct{}) (string, error) {
	// Nothing is dispatched or started from here on: the generation's gate
	// closes before the team checkpoint is announced (generation.go).
	g.SetCause(tr.cause) // the last checkpoints carry it
	var deadline context.Context
	if tr.now {
		// warden stop --now: no last call. One deadline for every agent,
		// shutdown_timeout from now.
		deadline = g.Stop(t.cfg.ShutdownTimeout)
	} else {
		g.AskLastCheckpoint() // last call: every busy session types a last checkpoint request
	}
	start := t.checkpointStarted(tr)
	if !tr.now {
		t.awaitLastCheckpoints(g, t.busyAgents(), done) // answers, or checkpoint_timeout
	}
	// One deadline for every agent, shutdown_timeout from now. Every
	// session at once types its CLI's quit keys, gives it a moment, then
	// TERMs its process group.
	dialogs := t.openDialogs() // left unanswered by the stop: the handoff says so
	if deadline == nil {
		deadline = g.Stop(t.cfg.ShutdownTimeout)
	}
	t.awaitExits(done, deadline) // every agent gone, or the deadline (a second signal: now)
	g.Kill()                     // KILL every process group still there
	<-done
	t.commitWork("the team checkpoint")  // what the agents wrote is on their branches
	return t.handOff(tr, start, dialogs) // handoff.md, then CHECKPOINT COMPLETE
}

// openDialogs are the texts of the dialogs agents wait on, by agent.
func (t *Team) openDialogs() map[string]string {
	open := map[string]string{}
	for _, a := range t.agents {
		if s := a.Status(); s.State == state.Waiting && s.Dialog != "" {
			open[s.Name] = s.Dialog
		}
	}
	return open
}

// checkpointStarted says a team checkpoint starts and why. It returns when
// it started.
func (t *Team) checkpointStarted(tr trigger) time.Time {
	start := t.clock.Now()
	t.log.Info("team checkpoint started", "reason", tr.reason, "cause", tr.cause)
	t.events.Emit(event.TeamCheckpointStarted, "", "", event.TeamCheckpointBegan{Reason: tr.reason, Cause: tr.cause}.KV()...)
	t.printf("TEAM CHECKPOINT: %s\n", tr.reason)
	return start
}

// busyAgents are the agents at work on something: the last call waits for
// their answers.
func (t *Team) busyAgents() map[string]bool {
	busy := map[string]bool{}
	for _, a := range t.agents {
		if a.Busy() {
			busy[a.Name()] = true
		}
	}
	return busy
}

// awaitLastCheckpoints waits, up to checkpoint_timeout, until every agent
// in waiting has answered the last call or exited; a forced stop, warden
// stop --now or the end of every agent cuts it short.
func (t *Team) awaitLastCheckpoints(g *agent.Generation, waiting map[string]bool, done <-chan struct{}) {
	if len(waiting) == 0 {
		return
	}
	timeout := t.clock.After(t.cfg.CheckpointTimeout)
	recheck := time.NewTicker(50 * time.Millisecond) // agents that exited instead of answering
	defer recheck.Stop()
	for len(waiting) > 0 {
		select {
		case name := <-g.Answered():
			delete(waiting, name)
		case <-recheck.C:
			for _, a := range t.agents {
				if waiting[a.Name()] && !a.Busy() {
					delete(waiting, a.Name())
				}
			}
		case <-timeout:
			for name := range waiting {
				t.log.Warn("no last checkpoint before the team checkpoint", "agent", name)
				t.events.Emit(event.CheckpointTimeout, name, "", "phase", "team_checkpoint")
			}
			return
		case <-g.Stopping(): // forced
			return
		case <-t.hurry: // warden stop --now
			return
		case <-done:
			return
		}
	}
}

// awaitExits waits until every agent has returned (done) or the shared
// deadline has passed.
func (t *Team) awaitExits(done <-chan struct{}, deadline context.Context) {
	select {
	case <-done:
	case <-deadline.Done():
	}
}

// handOff writes handoff.md (its previous version kept in handoffs/, old
// ones pruned), then prints CHECKPOINT COMPLETE and removes the signal
// file. It returns the handoff as the next generation's prompt; on an
// error nothing after the handoff happens.
func (t *Team) handOff(tr trigger, start time.Time, dialogs map[string]string) (string, error) {
	d := t.handoffData(tr, start, dialogs)
	path := t.dir.Handoff()
	if err := handoff.Write(path, t.dir.Handoffs(), d); err != nil {
		t.log.Error("handoff not written: no CHECKPOINT COMPLETE", "error", err)
		t.printf("ERROR: team checkpoint failed: %v\n", err)
		return "", fmt.Errorf("team checkpoint: %w", err)
	}
	t.events.Emit(event.HandoffWritten, "", "", "path", path)
	if err := t.dir.PruneHandoffs(t.cfg.Retention, t.clock.Now()); err != nil {
		t.log.Warn("old handoffs not pruned", "error", err)
	}
	t.printf("%s\n", checkpointComplete)
	t.events.Emit(event.CheckpointComplete, "", "", "reason", tr.reason,
		"duration_ms", t.clock.Now().Sub(start).Milliseconds())
	if err := os.Remove(t.cfg.SignalFile); err != nil && !os.IsNotExist(err) {
		t.log.Warn("signal file not removed", "path", t.cfg.SignalFile, "error", err)
	}
	t.publish()
	return handoff.RenderPrompt(d), nil
}

// handoffData collects the team and task states for the handoff: each
// agent with its profile, role and the task it held; each task with its
// status as a person reads it (blocked, waiting, in_progress…), time worked,
// attempts, and in worktree mode its branch, last commit and how far it is
// ahead of its base; the last checkpoint of each open task; the dialogs
// the stop left unanswered.
func (t *Team) handoffData(tr trigger, at time.Time, dialogs map[string]string) handoff.Data {
	d := handoff.Data{Team: t.cfg.Name, Reason: tr.reason, Cause: tr.cause, Time: at, Checkpoints: map[string]*protocol.Checkpoint{}}
	for _, a := range t.agents {
		s := a.Status()
		held := s.Task
		if held == "" {
			held = a.LastTask()
		}
		d.Agents = append(d.Agents, handoff.Agent{Name: s.Name, Profile: a.Config().Profile, State: string(s.State),
			Lead: a.Config().Lead, Task: held, Command: a.Config().Command, Forced: a.Forced(), Dialog: dialogs[s.Name]})
	}
	tasks := t.queue.Snapshot()
	aheadOfBase(t.log, tasks)
	for _, ts := range tasks {
		status := ts.Label()
		if (ts.State == queue.Pending || ts.State == queue.Running || ts.State == queue.Verifying) && ts.Attempt > 0 && !ts.IsBlocked() {
			status = "in_progress" // worked on until the stop, released by it
		}
		d.Tasks = append(d.Tasks, handoff.Task{ID: ts.ID, Title: ts.Title, Status: status, Owner: ts.Owner, Blocked: ts.IsBlocked(), Blockers: ts.BlockedOn(),
			Progress: ts.Progress, BlockedBy: ts.BlockedBy, Verify: ts.Verify, Worked: ts.Worked(), Attempts: ts.Attempt,
			Branch: ts.Branch, Base: ts.Base, Ahead: ts.Ahead, Commit: t.lastCommit(ts.ID)})
		if ts.State != queue.Complete {
			// What the task's next session resumes from (agent.ResumePoint):
			// the handoff speaks of the same record as its first prompt.
			if cp, _ := t.deps.ResumePoint(ts.ID); cp != nil {
				d.Checkpoints[ts.ID] = cp
			}
		}
	}
	for i, task := range d.Tasks {
		if cp := d.Checkpoints[task.ID]; task.Commit == "" && cp != nil && cp.Git != nil && task.Branch != "" {
			d.Tasks[i].Commit = cp.Git.Commit // the task's latest record's, when its worktree is gone
		}
	}
	t.handoffSpend(&d, tasks) // what the run and each task spent (spend.go)
	if l := t.landState(); l != nil {
		d.Land, d.LandWaits = l.Text, l.Waits
	}
	if lead := t.agentNamed(tr.lead); lead != nil {
		d.Lead = lead.Name()
		if cp := t.store.Latest(lead.LastTask(), t.thisRun.id, time.Time{}); cp != nil {
			d.LeadNotes = cp.Notes
		}
	}
	return d
}

// lastCommit is the last commit on task's branch (worktree mode), read
// from its worktree: after commitWork, the work up to the team checkpoint.
func (t *Team) lastCommit(task string) string {
	if t.deps.Workspaces == nil {
		return ""
	}
	ts := t.deps.Workspaces.Space(task)
	if ts == nil {
		return ""
	}
	if g := ts.Worktree.Info(); g != nil { // from the repository, never the worktree's .git
		return g.Head
	}
	return ""
}

// agentNamed returns the team's agent called name, or nil.
func (t *Team) agentNamed(name string) *agent.Agent {
	for _, a := range t.agents {
		if a.Name() == name {
			return a
		}
	}
	return nil
}

// commitWork commits every open task's worktree (worktree mode): what the
// agents wrote is on their branches before the handoff is written, even
// when they were killed.
func (t *Team) commitWork(when string) {
	ws := t.deps.Workspaces
	if ws == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	failed := ws.CommitAll(ctx, t.queue.Snapshot(), func(task, branch, commit string) {
		t.events.Emit(event.WorkCommitted, "", task, "branch", branch, "commit", commit, "when", when)
	})
	for _, f := range failed {
		t.log.Error("work not committed", "when", when, "error", f)
		t.printf("WARNING: work not committed at %s: %s\n", when, f)
	}
}
