package supervisor

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/handoff"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/config"
)

// Agent states (DESIGN §6).
const (
	StateIdle     = "idle" // waiting for a task
	StateStarting = "starting"
	StateRunning  = "running"
	StateBackoff  = "backoff"
	StateStopping = "stopping"
	StateStopped  = "stopped"
	StateExited   = "exited"
	StateFailed   = "failed"
)

// agent supervises one [[agent]] of the team: it takes tasks from the queue,
// runs a session for each, and applies the restart policy when a session's
// process ends before its task is done, until the agent is done for good or
// the team stops.
type agent struct {
	cfg    config.Agent
	team   *Team
	log    hclog.Logger
	policy *RestartPolicy

	inputMu sync.Mutex // one submission at a time: warden's typing or the user's keystrokes

	mu             sync.Mutex
	state          string
	proc           *runner.Process
	task           string
	attempt        int
	lastExit       runner.Exit
	reason         string
	lastCheckpoint time.Time
	lastTask       string
	feedback       string    // a failed verify's output, for the next first prompt
	forced         bool      // its last stop needed SIGKILL
	context        float64   // last context gauge, percent
	pausedUntil    time.Time // a usage-limit wait
	session        *session
}

func newAgent(t *Team, cfg config.Agent) *agent {
	return &agent{
		cfg:    cfg,
		team:   t,
		log:    t.log.Named("agent").With("agent", cfg.Name),
		policy: NewRestartPolicy(cfg.Restart, cfg.MaxRestarts, t.clock),
		state:  StateIdle,
	}
}

// run is the agent's loop in generation g; it returns when the agent is
// done for good or the generation stops.
func (a *agent) run(g *generation) {
	a.mu.Lock()
	a.forced = false
	a.mu.Unlock()
	if !a.team.hasTasks {
		a.runTask(g, nil)
		return
	}
	for {
		task := a.team.nextTask(g, a)
		if task == nil {
			if !g.isStopping() {
				a.setState(StateExited, a.lastExitValue(), "no task left for this agent")
			}
			return
		}
		if !a.runTask(g, task) {
			return
		}
	}
}

// runTask runs sessions for task until it is done (true) or the agent ends:
// failed, stopped, or for a task-less agent exited (false).
func (a *agent) runTask(g *generation, task *config.Task) bool {
	for {
		attempt := a.team.queue.NextAttempt(taskID(task))
		if task == nil {
			a.mu.Lock()
			a.attempt++
			attempt = a.attempt
			a.mu.Unlock()
		}
		exit, out := a.runSession(g, task, a.firstPrompt(g, task), attempt)
		switch out {
		case outDone:
			a.policy.Started() // a finished task is a stable run
			a.setState(StateIdle, exit, "task complete")
			return true
		case outStopped:
			a.setState(StateStopped, exit, "team stopped")
			if task != nil {
				a.team.queue.Release(task.ID)
			}
			return false
		}
		if a.team.wrap && out == outExited {
			// warden wrap: the user ended the agent; warden ends with it.
			a.setState(StateExited, exit, "the wrapped agent exited")
			if task != nil {
				a.team.queue.Release(task.ID)
			}
			return false
		}
		d := a.policy.Exited(task == nil && exit.Success() && out == outExited, g.isStopping())
		switch {
		case d.Failed:
			a.log.Error("agent failed", "reason", d.Reason, "last_exit", exit.String())
			a.team.events.Emit(EvAgentFailed, a.cfg.Name, taskID(task), "reason", d.Reason)
			a.setState(StateFailed, exit, d.Reason)
			a.team.agentFailed(a, task, d.Reason)
			return false
		case !d.Restart:
			a.setState(StateExited, exit, d.Reason)
			if task != nil {
				a.team.queue.Release(task.ID)
			}
			return false
		}
		a.setState(StateBackoff, exit, d.Reason)
		a.log.Info("restarting agent", "backoff", d.Delay, "reason", d.Reason, "task", taskID(task))
		select {
		case <-a.team.clock.After(d.Delay):
		case <-g.checkpointing:
			a.setState(StateStopped, exit, "team stopped during backoff")
			if task != nil {
				a.team.queue.Release(task.ID)
			}
			return false
		}
		a.team.events.Emit(EvAgentRestarted, a.cfg.Name, taskID(task), "attempt", attempt+1, "backoff", d.Delay.String())
	}
}

// firstPrompt is the preamble, the task, and what to resume from: the
// task's last checkpoint and a failed verify's output.
func (a *agent) firstPrompt(g *generation, task *config.Task) string {
	if task == nil {
		return ""
	}
	p := handoff.Prompt{
		Preamble: protocol.Preamble(protocol.Task{ID: task.ID, Title: task.Title}),
		Task:     task.Prompt,
		Feedback: a.feedback,
		Handoff:  g.handoff,
	}
	if cp := a.team.store.Latest(task.ID, a.team.resumeFrom); cp != nil {
		p.Checkpoint = cp
	}
	return p.Render()
}

// stop ends the process for a stopping team: TERM to its group now, then
// KILL at the team's shared shutdown deadline (or at once when forced).
func (a *agent) stop(g *generation, s *session) runner.Exit {
	proc := s.proc
	a.setState(StateStopping, runner.Exit{}, "")
	ctx := g.shutdownCtx()
	if ctx.Err() == nil {
		s.askToQuit(ctx)
	}
	exit := proc.Stop(ctx)
	if ctx.Err() != nil {
		why := "shutdown_timeout passed"
		if ctx.Err() == context.Canceled {
			why = "forced by a second signal"
		}
		a.log.Warn("agent force terminated", "pid", proc.Pid(), "reason", why)
		a.mu.Lock()
		a.forced = true
		a.mu.Unlock()
		a.team.events.Emit(EvAgentForceTerminated, a.cfg.Name, a.currentTask(), "pid", proc.Pid(), "reason", why)
	}
	if proc.Alive() {
		a.log.Error("process group still has members after kill", "pgid", proc.Pid())
		proc.Kill()
	}
	return exit
}
