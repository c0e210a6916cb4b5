package supervisor

import (
	"context"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/config"
)

// Agent states (DESIGN §6).
const (
	StateStarting = "starting"
	StateRunning  = "running"
	StateBackoff  = "backoff"
	StateStopping = "stopping"
	StateStopped  = "stopped"
	StateExited   = "exited"
	StateFailed   = "failed"
)

// agent supervises one [[agent]] of the team: it starts the process, waits
// for it, and applies the restart policy until the agent is done or the
// team stops.
type agent struct {
	cfg    config.Agent
	team   *Team
	log    hclog.Logger
	policy *RestartPolicy

	mu       sync.Mutex
	state    string
	proc     *runner.Process
	attempt  int
	lastExit runner.Exit
	reason   string
}

func newAgent(t *Team, cfg config.Agent) *agent {
	return &agent{
		cfg:    cfg,
		team:   t,
		log:    t.log.Named("agent").With("agent", cfg.Name),
		policy: NewRestartPolicy(cfg.Restart, cfg.MaxRestarts, t.clock),
		state:  StateStarting,
	}
}

// run is the agent's loop; it returns when the agent is done for good.
func (a *agent) run() {
	for {
		exit, stopped := a.runOnce()
		if stopped {
			a.setState(StateStopped, exit, "team stopped")
			return
		}
		d := a.policy.Exited(exit.Success(), a.team.isStopping())
		switch {
		case d.Failed:
			a.log.Error("agent failed", "reason", d.Reason, "last_exit", exit.String())
			a.team.events.Emit(EvAgentFailed, a.cfg.Name, "", "reason", d.Reason)
			a.setState(StateFailed, exit, d.Reason)
			return
		case !d.Restart:
			a.setState(StateExited, exit, d.Reason)
			return
		}
		a.setState(StateBackoff, exit, d.Reason)
		a.log.Info("restarting agent", "backoff", d.Delay, "reason", d.Reason)
		select {
		case <-a.team.clock.After(d.Delay):
		case <-a.team.stopping:
			a.setState(StateStopped, exit, "team stopped during backoff")
			return
		}
		a.team.events.Emit(EvAgentRestarted, a.cfg.Name, "", "attempt", a.attempt+1, "backoff", d.Delay.String())
	}
}

// runOnce starts the process and waits for it to exit, or stops it when the
// team stops. stopped reports the latter.
func (a *agent) runOnce() (exit runner.Exit, stopped bool) {
	a.mu.Lock()
	a.attempt++
	attempt := a.attempt
	a.mu.Unlock()
	if a.team.isStopping() {
		return runner.Exit{}, true
	}
	a.policy.Started()
	proc, err := runner.Start(a.log, runner.Config{
		Name:    a.cfg.Name,
		Argv:    a.cfg.Command,
		Dir:     a.cfg.Dir,
		Env:     envList(a.cfg.Env),
		LogPath: a.team.dir.LogPath(a.cfg.Name),
	})
	if err != nil {
		a.log.Error("agent did not start", "error", err)
		return runner.Exit{Code: -1, Err: err}, false
	}
	a.mu.Lock()
	a.proc, a.state = proc, StateRunning
	a.mu.Unlock()
	a.team.events.Emit(EvAgentStarted, a.cfg.Name, "", "pid", proc.Pid(), "attempt", attempt)

	select {
	case <-proc.Done():
		exit = proc.Exit()
		if proc.Alive() {
			a.stopLeftovers(proc)
		}
	case <-a.team.stopping:
		exit = a.stop(proc)
		stopped = true
	}
	a.team.events.Emit(EvAgentExited, a.cfg.Name, "", "pid", proc.Pid(), "code", exit.Code,
		"signal", signalName(exit.Signal), "exit", exit.String())
	return exit, stopped
}

// stop ends the process for a stopping team: TERM to its group now, then
// KILL at the team's shared shutdown deadline (or at once when forced).
func (a *agent) stop(proc *runner.Process) runner.Exit {
	a.setState(StateStopping, runner.Exit{}, "")
	ctx := a.team.shutdownCtx()
	exit := proc.Stop(ctx)
	if ctx.Err() != nil {
		why := "shutdown_timeout passed"
		if ctx.Err() == context.Canceled {
			why = "forced by a second signal"
		}
		a.log.Warn("agent force terminated", "pid", proc.Pid(), "reason", why)
		a.team.events.Emit(EvAgentForceTerminated, a.cfg.Name, "", "pid", proc.Pid(), "reason", why)
	}
	if proc.Alive() {
		a.log.Error("process group still has members after kill", "pgid", proc.Pid())
		proc.Kill()
	}
	return exit
}

// stopLeftovers ends what an exited agent left running in its group or
// escaped from it (a background server, a stray grandchild): TERM now, KILL
// after shutdown_timeout, or at the team's own deadline if that comes first.
func (a *agent) stopLeftovers(proc *runner.Process) {
	a.log.Warn("agent exited and left processes behind, stopping them", "pgid", proc.Pid())
	ctx, cancel := context.WithTimeout(context.Background(), a.team.cfg.ShutdownTimeout)
	defer cancel()
	go func() {
		select {
		case <-a.team.stopping:
			select {
			case <-a.team.shutdownCtx().Done():
				cancel()
			case <-ctx.Done():
			}
		case <-ctx.Done():
		}
	}()
	if proc.Stop(ctx); ctx.Err() != nil {
		a.team.events.Emit(EvAgentForceTerminated, a.cfg.Name, "", "pid", proc.Pid(), "reason", "left processes behind")
	}
}

func (a *agent) setState(state string, exit runner.Exit, reason string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.state = state
	if state != StateStopping {
		a.lastExit, a.reason = exit, reason
	}
}

// snapshot is the agent's state for the dashboard and the result.
func (a *agent) snapshot() AgentStatus {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := AgentStatus{Name: a.cfg.Name, State: a.state, Attempt: a.attempt,
		Exit: a.lastExit.String(), Reason: a.reason}
	if a.proc != nil {
		s.Pid = a.proc.Pid()
	}
	return s
}
