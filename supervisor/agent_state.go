package supervisor

import (
	"context"
	"time"

	"github.com/wardenhq/warden/runner"
)

// stopLeftovers ends what an exited agent left running in its group or
// escaped from it (a background server, a stray grandchild): TERM now, KILL
// after shutdown_timeout, or at the team's own deadline if that comes first.
func (a *agent) stopLeftovers(g *generation, proc *runner.Process) {
	a.log.Warn("agent exited and left processes behind, stopping them", "pgid", proc.Pid())
	ctx, cancel := context.WithTimeout(context.Background(), a.team.cfg.ShutdownTimeout)
	defer cancel()
	go func() {
		select {
		case <-g.stopping:
			select {
			case <-g.shutdownCtx().Done():
				cancel()
			case <-ctx.Done():
			}
		case <-ctx.Done():
		}
	}()
	if proc.Stop(ctx); ctx.Err() != nil {
		a.team.events.Emit(EvAgentForceTerminated, a.cfg.Name, a.currentTask(), "pid", proc.Pid(), "reason", "left processes behind")
	}
}

// started records a session's process as the agent's current one.
func (a *agent) started(s *session) {
	a.mu.Lock()
	a.proc, a.state, a.task, a.attempt, a.session = s.proc, StateRunning, taskID(s.task), s.attempt, s
	if s.task != nil {
		a.lastTask = s.task.ID
	}
	a.mu.Unlock()
	a.team.publish()
}

// checkpointed records the time of the agent's last checkpoint.
func (a *agent) checkpointed(now time.Time) {
	a.mu.Lock()
	a.lastCheckpoint = now
	a.mu.Unlock()
}

func (a *agent) setState(state string, exit runner.Exit, reason string) {
	a.mu.Lock()
	a.state = state
	if state != StateStopping {
		a.lastExit, a.reason = exit, reason
	}
	if state != StateRunning && state != StateStopping {
		a.session = nil
	}
	if state == StateIdle || state == StateExited {
		a.task = ""
	}
	a.mu.Unlock()
	a.team.publish()
}

// setPaused records a usage-limit wait (zero: none).
func (a *agent) setPaused(until time.Time) {
	a.mu.Lock()
	a.pausedUntil = until
	a.mu.Unlock()
	a.team.publish()
}

// setContext records the agent's context gauge.
func (a *agent) setContext(percent float64) {
	a.mu.Lock()
	a.context = percent
	a.mu.Unlock()
}

// currentSession is the agent's running session, or nil.
func (a *agent) currentSession() *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state != StateRunning {
		return nil
	}
	return a.session
}

// busy reports whether the agent runs a session on a task now.
func (a *agent) busy() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.session != nil && a.session.task != nil && a.state == StateRunning
}

func (a *agent) wasForced() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.forced
}

// currentTaskOrLast is the task the agent works on, or last worked on.
func (a *agent) currentTaskOrLast() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lastTask
}

func (a *agent) currentTask() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.task
}

func (a *agent) lastExitValue() runner.Exit {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lastExit
}

// snapshot is the agent's state for the dashboard and the result.
func (a *agent) snapshot() AgentStatus {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := AgentStatus{Name: a.cfg.Name, State: a.state, Attempt: a.attempt, Task: a.task,
		Exit: a.lastExit.String(), Reason: a.reason, LastCheckpoint: a.lastCheckpoint, ExitCode: a.lastExit.Code,
		Context: a.context, PausedUntil: a.pausedUntil}
	if a.lastExit.Signal != 0 {
		s.ExitCode = 128 + int(a.lastExit.Signal)
	}
	if a.proc != nil {
		s.Pid = a.proc.Pid()
	}
	return s
}
