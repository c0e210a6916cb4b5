package agent

import (
	"time"

	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/session"
	"github.com/wardenhq/warden/supervisor/state"
)

// started records a session's process as the agent's current one.
func (a *Agent) started(s *session.Session) {
	a.mu.Lock()
	a.sess, a.state, a.task, a.attempt, a.pid = s, state.Running, taskIDOf(s), s.Attempt(), s.Pid()
	a.holding = nil
	a.requestedAt = s.Awaited() // a session taken back awaits what the dead warden asked
	a.unprompted = s.Unprompted()
	a.sessions++
	if s.Task() != nil {
		a.lastTask = s.Task().ID
	}
	a.mu.Unlock()
	a.d.Team.Publish()
}

func taskIDOf(s *session.Session) string { return taskID(s.Task()) }

func (a *Agent) setState(st state.AgentState, exit runner.Exit, reason string) {
	a.mu.Lock()
	a.state = st
	if st != state.Starting {
		a.holding = nil // the session being taken back ended, or never started
	}
	if st != state.Stopping {
		a.lastExit, a.reason, a.hasExit = exit, reason, a.hasExit || a.sessions > 0
	}
	if st != state.Running && st != state.Stopping {
		a.sess = nil
	}
	a.dialog = ""
	if st == state.Idle || st == state.Exited {
		a.task = ""
	}
	a.mu.Unlock()
	a.d.Team.Publish()
}

// Session is the agent's running session, or nil.
func (a *Agent) Session() *session.Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state != state.Running && a.state != state.Waiting {
		return nil
	}
	return a.sess
}

// Busy reports whether the agent runs a session on a task now (and does not
// wait on a dialog, nor is parked at its account's limit: it can answer a
// checkpoint request).
func (a *Agent) Busy() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sess != nil && a.sess.Task() != nil && a.state == state.Running && !a.sess.Parked()
}

// Forced reports whether the agent's last stop needed SIGKILL.
func (a *Agent) Forced() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.forced
}

// LastTask is the task the agent works on, or last worked on.
func (a *Agent) LastTask() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lastTask
}

func (a *Agent) currentTask() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.task
}

func (a *Agent) lastExitValue() runner.Exit {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lastExit
}

func (a *Agent) feedbackText() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.feedback
}

func (a *Agent) setFeedback(f string) {
	a.mu.Lock()
	a.feedback = f
	a.mu.Unlock()
}

// Status is the agent's state for the dashboard and the result.
func (a *Agent) Status() state.AgentStatus {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := state.AgentStatus{Name: a.cfg.Name, State: a.state, Attempt: a.attempt, Task: a.task,
		Reason: a.reason, LastCheckpoint: a.lastCheckpoint, RequestedAt: a.requestedAt, Unprompted: a.unprompted,
		Context: a.context, PausedUntil: a.pausedUntil, Dialog: a.dialog, BudgetHeld: a.Held(HoldBudget), OverlapHeld: a.OverlapHeld(), LastDialog: a.lastDialog}
	if !a.spend.Zero() {
		u := a.spend.Clone()
		s.Usage = &u
	}
	if a.hasExit { // no "exit code 0" for an agent whose process has not ended yet
		s.Exit, s.ExitCode = a.lastExit.String(), a.lastExit.Code
		if a.lastExit.Signal != 0 {
			s.ExitCode = 128 + int(a.lastExit.Signal)
		}
	}
	s.Pid = a.pid
	if a.sess != nil {
		s.Session = a.sess.ID()
	}
	if tb := a.holding; tb != nil && a.sess == nil {
		a.heldStatus(&s, tb)
	}
	return s
}

// heldStatus is the session the agent is taking back, as the dead warden
// left it in state.json: a warden killed during the take-back (before the
// session attached) leaves it there for the next one to take back, its
// answers in the holder's ring with it. Said otherwise (no pid, the agent
// starting), the next warden stopped the held session unread.
func (a *Agent) heldStatus(s *state.AgentStatus, tb *TakeBack) {
	s.State, s.Task, s.Attempt, s.Pid, s.Session = state.Running, tb.Task, tb.Attempt, tb.Pid, tb.SessionID
	s.LastCheckpoint, s.RequestedAt = tb.Since, tb.Requested
	if s.PausedUntil.IsZero() {
		s.PausedUntil = tb.PausedUntil
	}
}

// checkpointed records the time of the agent's last checkpoint.
func (a *Agent) checkpointed(now time.Time) {
	a.mu.Lock()
	a.lastCheckpoint, a.requestedAt, a.unprompted = now, time.Time{}, false // an answer: it had its prompt
	a.mu.Unlock()
}

// awaits records, in state.json at once, that a checkpoint request typed
// at t is awaited (zero: none is, it was answered, rejected or timed
// out): a warden that takes the session back after a kill -9 awaits it
// as well instead of typing another into the turn it is in.
func (a *Agent) awaits(t time.Time) {
	a.mu.Lock()
	a.requestedAt = t
	a.mu.Unlock()
	a.d.Team.Publish()
}

// prompted records, in state.json at once, that the CLI took the
// session's first prompt: from now on a warden killed leaves a session
// the next one takes back (before, it starts the task afresh).
func (a *Agent) prompted() {
	a.mu.Lock()
	a.unprompted = false
	a.mu.Unlock()
	a.d.Team.Publish()
}

// answered keeps what a person's answer to the agent's dialog did (a
// dialog_answered event's fields, by a person): warden ps and the page say
// "declined" after a deny, whatever the CLI's transcript says.
func (a *Agent) answered(kv []any) {
	f := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		if k, ok := kv[i].(string); ok {
			if v, ok := kv[i+1].(string); ok {
				f[k] = v
			}
		}
	}
	out := state.OutcomeOf(f["choice"])
	if f["by"] != "person" || out == "" {
		return
	}
	o := &state.DialogOutcome{Outcome: out, Question: f["question"], DialogID: f["dialog_id"], Via: f["via"], At: a.d.Clock.Now()}
	a.mu.Lock()
	a.lastDialog = o
	a.mu.Unlock()
}
