package agent

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/handoff"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/memory"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/session"
	"github.com/wardenhq/warden/supervisor/state"
)

// Agent supervises one [[agent]] of the team until it is done for good or
// the team stops.
type Agent struct {
	cfg    config.Agent
	d      *Deps
	log    hclog.Logger
	policy *RestartPolicy

	mu             sync.Mutex
	state          state.AgentState
	sess           *session.Session
	pid            int // of the last process
	task           string
	attempt        int
	lastExit       runner.Exit
	hasExit        bool // lastExit is a session's (some process has ended)
	sessions       int  // sessions started
	reason         string
	lastCheckpoint time.Time
	requestedAt    time.Time // a checkpoint request typed then is awaited (zero: none)
	unprompted     bool      // the session's first prompt not taken by its CLI yet
	holding        *TakeBack // the session being taken back, until it attached or was dropped
	lastTask       string
	feedback       string               // a failed verify's output, for the next first prompt
	forced         bool                 // its last stop needed SIGKILL
	context        float64              // last context gauge, percent
	pausedUntil    time.Time            // its account's hold plans to end then (holds.go)
	dialog         string               // the dialog the agent waits on (state waiting)
	lastDialog     *state.DialogOutcome // what a person's answer to its last dialog did
	nudged         map[string]int       // idle nudges typed, by task, over all its sessions (idle_nudges is a task's)
	lastRecord     *protocol.Checkpoint // the last checkpoint it made (warden ps, the page)
	spend          protocol.Usage       // what its sessions spent in the run (usage.go)
	// holds are the reasons it is held (parked): its account, the budget.
	holds holds
	// carried: its CLI keeps warden's protocol where it keeps instructions
	// (its settings put it there: launch.go), so warden wrap types no
	// first prompt.
	carried bool
	// takeback is a held session its next Run takes back (takeback.go).
	takeback  *TakeBack
	tbSettled <-chan struct{} // the take-back's settled (TakeBackSettled)
}

// New returns the agent of cfg in a team whose services are d.
func New(cfg config.Agent, d *Deps) *Agent {
	a := &Agent{
		cfg:    cfg,
		d:      d,
		log:    d.Log.Named("agent").With("agent", cfg.Name),
		policy: NewRestartPolicy(cfg.Restart, cfg.MaxRestarts, d.Clock),
		state:  state.Idle,
	}
	d.Overlaps.add(a)
	d.Reviews.add(a)
	return a
}

// Name is the agent's name.
func (a *Agent) Name() string { return a.cfg.Name }

// Config is the agent's [[agent]] table.
func (a *Agent) Config() config.Agent { return a.cfg }

// Run is the agent's loop in generation g; it returns when the agent is
// done for good or the generation stops.
func (a *Agent) Run(g *Generation) {
	a.mu.Lock()
	a.forced = false
	a.mu.Unlock()
	if !a.d.HasTasks {
		a.dropTakeBack() // a task-less agent's session is not taken back
		a.runTask(g, nil)
		return
	}
	defer a.dropTakeBack() // the team stopped before it was taken back
	for {
		task := a.takeBackTask(g)
		if task == nil {
			task = a.nextTask(g)
		}
		if task == nil {
			if !g.IsStopping() {
				a.setState(state.Exited, a.lastExitValue(), "no task left for this agent")
			}
			return
		}
		if !a.runTask(g, task) {
			if !g.IsStopping() { // ended for good: what it was to review completes unreviewed
				a.reviewerEnded(g, a.Status().Reason)
			}
			return
		}
	}
}

// nextTask waits for a task the agent may take; nil when none is left for it
// or the team stops.
func (a *Agent) nextTask(g *Generation) *config.Task {
	q := a.d.Queue
	for {
		changed := q.Changed()
		release, ok := g.MayStart() // nothing is dispatched once the team checkpoint began
		if !ok {
			return nil
		}
		if review := a.nextReview(); review != nil { // a review round first (review.go)
			release()
			a.log.Info("review dispatched", "review", review.ID)
			return review
		}
		if task := q.Take(a.cfg.Name); task != nil {
			a.d.Events.Emit(event.TaskDispatched, a.cfg.Name, task.ID, "title", task.Title)
			release()
			a.log.Info("task dispatched", "task", task.ID)
			return task
		}
		release()
		if !q.Open() {
			return nil
		}
		select {
		case <-changed:
		case <-g.checkpointing:
			return nil
		}
	}
}

// runTask runs sessions for task until it is done (true) or the agent ends:
// failed, stopped, or for a task-less agent exited (false).
func (a *Agent) runTask(g *Generation, task *config.Task) bool {
	dir, ts, ok := a.workDir(g, task)
	if !ok {
		return true // the task is blocked or failed; the agent is free
	}
	for {
		ticket, admitted := a.admit(g, task) // max_running, memory_floor: its turn
		if !admitted {
			a.setState(state.Stopped, a.lastExitValue(), "team stopped while it waited its turn")
			a.release(task)
			return false
		}
		if dir, ts, ok = a.sessionDir(g, task, dir, ts); !ok {
			ticket.Release()
			return true // its worktree was refused, or could not be made again
		}
		// From here until its process runs the session holds the team
		// checkpoint off; once that began, no attempt is spent and nothing
		// starts.
		started, ok := g.MayStart()
		if !ok {
			ticket.Release()
			a.setState(state.Stopped, a.lastExitValue(), "team stopped before its session started")
			a.release(task)
			return false
		}
		if why := a.overBudget(task, a.d.Queue.Attempts(taskID(task))+1); why != "" && a.pendingTakeBack(task) == nil {
			started()
			ticket.Release()
			a.failTask(task, why)
			return true // the agent is free for the next task
		}
		var attempt int
		if tb := a.pendingTakeBack(task); tb != nil {
			attempt = tb.Attempt // taken back: no session starts, it keeps its attempt
		} else {
			attempt = a.d.Queue.NextAttempt(taskID(task)) // spent: a session starts
		}
		if task == nil {
			a.mu.Lock()
			a.attempt++
			attempt = a.attempt
			a.mu.Unlock()
		}
		began := a.d.Clock.Now()
		exit, out, end, memory := a.runSession(g, task, attempt, dir, ts, ticket, started)
		if task != nil {
			a.d.Queue.AddWork(task.ID, a.d.Clock.Now().Sub(began))
		}
		switch out {
		case session.OverTime:
			a.setState(state.Idle, exit, "max_time reached")
			a.failTask(task, fmt.Sprintf("max_time %s reached", task.MaxTime))
			return true
		case session.Overspent:
			a.setState(state.Idle, exit, "the task's budget reached")
			a.overspent(task)
			return true
		case session.Done:
			a.setState(state.Idle, exit, doneReason(a.d.Queue, task))
			return true
		case session.Stopped:
			a.setState(state.Stopped, exit, "team stopped")
			a.release(task)
			return false
		case session.Restarted:
			if g.IsStopping() {
				a.setState(state.Stopped, exit, "team stopped")
				a.release(task)
				return false
			}
			if memory == "" {
				// warden restart: a new session at once, from the last
				// checkpoint; no backoff, and not a failure.
				a.setState(state.Starting, exit, "restarted with warden restart")
				a.d.Events.Emit(event.AgentRestarted, a.cfg.Name, taskID(task), "attempt", attempt+1, "reason", "warden restart")
				continue
			}
			// Over its memory_max: restarted from that last checkpoint
			// through the restart policy below, like a failure.
		}
		if a.d.Wrap && out == session.Exited {
			// warden wrap: the user ended the agent; warden ends with it.
			a.setState(state.Exited, exit, "the wrapped agent exited")
			a.release(task)
			return false
		}
		if end.noStart != "" && out == session.Exited {
			a.failNow(task, exit, end) // every restart would fail alike (nostart.go)
			return false
		}
		dec := a.policy.Exited(task == nil && exit.Success() && out == session.Exited, g.IsStopping())
		quick := end.quick(exit, out, task != nil) && !g.IsStopping()
		switch {
		case dec.Failed:
			dec.Reason = end.withStop(dec.Reason)
			a.log.Error("agent failed", "reason", dec.Reason, "last_exit", exit.String())
			a.d.Events.Emit(event.AgentFailed, a.cfg.Name, taskID(task), "reason", dec.Reason, "last_lines", end.lines)
			a.setState(state.Failed, exit, dec.Reason)
			a.failTasks(task, dec.Reason, end)
			return false
		case !dec.Restart:
			if quick {
				a.warnQuickExit(exit, end, "not restarted ("+dec.Reason+")")
			}
			a.setState(state.Exited, exit, dec.Reason)
			a.release(task)
			return false
		}
		if why := a.overBudget(task, attempt+1); why != "" {
			// No session is left to the task: it fails now, not after a
			// backoff and a restart that would not happen.
			if quick {
				a.warnQuickExit(exit, end, "not restarted ("+why+")")
			}
			a.setState(state.Idle, exit, why)
			a.failTask(task, why)
			return true
		}
		if quick {
			a.warnQuickExit(exit, end, dec.Reason)
		} else if out == session.Exited {
			a.sayCrashed(task, exit, end, memory, dec)
		}
		restarted := []any{"attempt", attempt + 1, "backoff", dec.Delay.String()}
		if memory != "" { // the OOM killer, or the RSS watch over memory_max
			dec.Reason = memory + "; " + dec.Reason
			restarted = append(restarted, "reason", memory)
		} else if why := end.withStop(restartReason(out, exit, end)); why != "" {
			restarted = append(restarted, "reason", why)
		}
		a.setState(state.Backoff, exit, dec.Reason)
		a.log.Info("restarting agent", "backoff", dec.Delay, "reason", dec.Reason, "task", taskID(task))
		select {
		case <-a.d.Clock.After(dec.Delay):
		case <-g.checkpointing:
			a.setState(state.Stopped, exit, "team stopped during backoff")
			a.release(task)
			return false
		}
		a.d.Events.Emit(event.AgentRestarted, a.cfg.Name, taskID(task), restarted...)
	}
}

// runSession runs one process of the agent for task (nil: no task) on its
// ticket (released when it ends): in its cgroup when memory_max has one,
// followed by the RSS watch. memory is why its end calls for a restart: the
// kernel's OOM killer, or memory_max; "" for neither.
func (a *Agent) runSession(g *Generation, task *config.Task, attempt int, dir string, ts *TaskSpace, ticket *memory.Ticket, started func()) (exit runner.Exit, out session.Outcome, end ended, memory string) {
	defer ticket.Release()
	defer started() // the session calls it once its process runs; this, if it never got that far
	var left time.Duration
	if task != nil && task.MaxTime > 0 {
		left = task.MaxTime - a.d.Queue.Worked(task.ID)
	}
	argv, env, err := a.commandLine()
	if err != nil {
		a.log.Error("agent command line", "error", err)
		return runner.Exit{Code: -1, Err: err}, session.Exited, ended{}, ""
	}
	grp := a.d.Memory.Group(&a.cfg)
	prompt, from := a.firstPrompt(g, task, attempt)
	start, id, since, awaited := a.d.Start, "", time.Time{}, time.Time{}
	if tb := a.takeBackNow(task); tb != nil { // takeback.go: nothing is typed again
		prompt, start, id, since, awaited = "", tb.Start, tb.SessionID, tb.Since, tb.Requested
		defer tb.settle() // it never got as far as its start
		started = func(started func()) func() { return func() { started(); tb.settle() } }(started)
	}
	rep := &reporter{a: a, g: g, task: task, dir: dir, ts: ts, from: from}
	if id != "" {
		rep.drawn, rep.takenBack = a.recordsOfSession(task, id), true // takeback.go
		rep.dead = len(rep.drawn)
	}
	s := session.New(a.log, session.Config{
		Agent: a.cfg.Name, Task: task, Attempt: attempt, Prompt: prompt, SessionID: id, Since: since, Awaited: awaited,
		Profile: a.cfg.Profile, Argv: argv, Env: env, Dir: dir,
		LogPath: a.d.Dir.AgentLog(a.cfg.Name), Size: a.d.windowSize(), Term: a.d.termOutput(),
		Timers: a.timersFor(taskID(task)), Clock: a.d.Clock, Team: g, Dialog: a.dialogPolicy(), TimeLeft: left,
		LogMaxSize: a.d.Config.LogMaxSize, LogKeep: a.d.Config.LogKeep, CastPath: a.recordings(),
		Report: rep, Cgroup: grp.Runner(), Scoped: grp.Scoped(), Walls: a.walls(grp), Channel: a.channel(argv, id != ""), Start: start, Started: started,
		AfterStall: func() (bool, string) { return a.afterStall(task, attempt) },
	})
	a.watch(ticket, s, grp, taskID(task))
	oomBefore, oomKnown := a.d.Memory.OOMCount()
	exit, out = s.Run()
	memory = a.afterSession(ticket, s, grp, exit, oomBefore, oomKnown, taskID(task))
	if rep.awaitVerify() && out != session.Done {
		// The task's verify passed after the session ended (its agent
		// exited, stalled or was restarted while it ran): the task is done.
		out = session.Done
	}
	if s.Forced() {
		a.mu.Lock()
		a.forced = true
		a.mu.Unlock()
	}
	end = a.endOf(s, exit)
	end.stalled = rep.stalled
	return exit, out, end, memory
}

// afterStall says whether a stall of the session of attempt on task would
// be followed by a restart, and if not why: the restart policy's answer, or
// the task's max_attempts spent (the session is called from the agent's
// goroutine, inside Run: the policy is not shared).
func (a *Agent) afterStall(task *config.Task, attempt int) (bool, string) {
	if restart, why := a.policy.Peek(); !restart {
		return false, why
	}
	if why := a.overBudget(task, attempt+1); why != "" {
		return false, why
	}
	return true, ""
}

// dialogPolicy is what the agent's sessions do with a dialog.
func (a *Agent) dialogPolicy() session.DialogPolicy {
	p := a.d.Config.Dialog(&a.cfg)
	return session.DialogPolicy{Deny: p.On == config.DialogDeny, Timeout: p.Timeout}
}

// firstPrompt is the preamble, the task, and what to resume from: the
// task's last checkpoint (and what the session must know of it) and a
// failed verify's output. attempt is the session's number, the one its
// records and agent_started carry: the prompt names that one.
func (a *Agent) firstPrompt(g *Generation, task *config.Task, attempt int) (string, *protocol.Checkpoint) {
	if task == nil {
		return "", nil
	}
	_, note := a.d.Queue.Afresh(task.ID)
	cp, said := a.resumeFrom(task)
	p := handoff.Prompt{
		Preamble: protocol.Preamble(protocol.Task{ID: task.ID, Title: task.Title, Lead: a.cfg.Lead}),
		Task:     task.Prompt,
		Feedback: strings.TrimSpace(note + "\n\n" + said + "\n\n" + a.feedbackText()),
		Handoff:  g.handoff,
	}
	p.Checkpoint, p.Attempt = cp, attempt
	if a.d.Wrap && a.carried && cp == nil && p.Feedback == "" && p.Handoff == "" {
		// warden wrap, nothing to resume: the user's own session, whose CLI
		// has the protocol already (launch.go); nothing is typed into it.
		return "", nil
	}
	return p.Render(), cp
}

// overBudget says why the task may not start another session, or "": its
// max_attempts sessions (restarts and rehydrations counted) or its max_time
// are spent.
func (a *Agent) overBudget(task *config.Task, attempt int) string {
	switch {
	case task == nil:
		return ""
	case task.MaxAttempts > 0 && attempt > task.MaxAttempts:
		return fmt.Sprintf("max_attempts %d reached", task.MaxAttempts)
	case task.MaxTime > 0 && a.d.Queue.Worked(task.ID) >= task.MaxTime:
		return fmt.Sprintf("max_time %s reached", task.MaxTime)
	case a.spentWhy(task) != "": // max_cost, max_tokens (usage.go)
		return a.spentWhy(task)
	}
	return ""
}

// failTask fails one task on its budget; the agent goes on to the next.
func (a *Agent) failTask(task *config.Task, reason string) {
	a.log.Error("task failed", "task", task.ID, "reason", reason)
	a.d.Queue.Set(task.ID, queue.Failed, reason)
	a.d.Events.Emit(event.TaskFailed, a.cfg.Name, task.ID, "reason", reason)
	a.d.Team.Printf(a.cfg.Name, "TASK FAILED: %s%s\n", task.ID, inParens(reason))
	a.d.Team.Publish()
}

// release puts the agent's unfinished task back in the queue.
func (a *Agent) release(task *config.Task) {
	if id, _, ok := config.ParseReviewID(taskID(task)); ok {
		a.d.Queue.ReleaseReview(id) // asked again, by its next session
		return
	}
	if task != nil {
		a.d.Queue.Release(task.ID)
	}
}

// failTasks hands the failed agent's task to another agent that may take
// it — its checkpoint archived as {agent}-{task}_crashed_{stamp}.json, which
// the next session resumes from — and fails it, with the tasks only this
// agent may take, when nobody can.
func (a *Agent) failTasks(task *config.Task, reason string, end ended) {
	taker := func(t config.Task) bool { return a.d.Team.CanTake(t, a.cfg.Name) }
	failed, released := a.d.Queue.AgentFailed(a.cfg.Name, taskID(task), "agent "+a.cfg.Name+" failed: "+reason, taker)
	for _, id := range released {
		if err := a.d.Store.ArchiveCrashed(a.cfg.Name, id); err != nil {
			a.log.Error("checkpoint of a failed agent not archived", "task", id, "error", err)
		}
		a.d.Events.Emit(event.TaskReleased, a.cfg.Name, id, "reason", "agent "+a.cfg.Name+" failed: "+reason)
		a.d.Team.Printf(a.cfg.Name, "WARNING: %s failed (%s%s); %s goes to another agent, from its last checkpoint\n", a.cfg.Name, reason, end.said(), id)
	}
	for _, id := range failed {
		a.d.Events.Emit(event.TaskFailed, a.cfg.Name, id, "reason", reason)
		a.d.Team.Printf(a.cfg.Name, "TASK FAILED: %s (agent %s failed: %s%s)\n", id, a.cfg.Name, reason, end.said())
	}
	if len(failed)+len(released) == 0 {
		a.d.Team.Printf(a.cfg.Name, "WARNING: %s failed (%s%s)\n", a.cfg.Name, reason, end.said())
	}
	a.d.Team.Publish()
}

func taskID(t *config.Task) string {
	if t == nil {
		return ""
	}
	return t.ID
}

// timersFor are the team's timers for a session on task: idle_nudges less
// the nudges its earlier sessions on that task were typed (the cap is the
// task's, not each session's; 0 left: agent_idle after idle_after, nothing
// typed).
func (a *Agent) timersFor(task string) session.Timers {
	t := a.d.Timers
	a.mu.Lock()
	t.IdleNudges = max(0, t.IdleNudges-a.nudged[task])
	a.mu.Unlock()
	return t
}

// noteNudge counts a nudge typed to the agent's session on task.
func (a *Agent) noteNudge(task string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.nudged == nil {
		a.nudged = map[string]int{}
	}
	a.nudged[task]++
}
