package agent

import (
	"time"

	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/memory"
	"github.com/wardenhq/warden/supervisor/state"
)

// admit waits for the agent's turn to start a session on task (the team's
// Memory: max_running, memory_floor). While it waits the agent is in state
// admission, with why, and never stale: nothing of it runs. It returns the
// session's ticket (nil without Memory), and false when the team stopped
// first.
func (a *Agent) admit(g *Generation, task *config.Task) (*memory.Ticket, bool) {
	m := a.d.Memory
	if m == nil {
		return nil, true
	}
	m.Start()
	waited := false
	t, took := m.Acquire(a.cfg.Name, a.cfg.Profile, g.LastCall(), func(w memory.Wait) {
		waited = true
		a.log.Info("waiting its turn", "why", w.String())
		a.d.Events.Emit(event.AdmissionWaiting, a.cfg.Name, taskID(task), w.Fields()...)
		a.waitTurn(task, w.String())
	})
	if t == nil {
		return nil, false
	}
	if waited {
		running, _, avail := m.Counts()
		kv := []any{"waited", took.Round(time.Millisecond).String(), "running", running}
		if avail > 0 {
			kv = append(kv, "memory_available", avail)
		}
		a.log.Info("admitted", "waited", took)
		a.d.Events.Emit(event.AgentAdmitted, a.cfg.Name, taskID(task), kv...)
		a.setState(state.Starting, a.lastExitValue(), "admitted after "+took.Round(time.Millisecond).String())
	}
	return t, true
}

// waitTurn shows the agent waiting its turn to start on task.
func (a *Agent) waitTurn(task *config.Task, why string) {
	a.mu.Lock()
	a.state, a.reason, a.task, a.sess, a.dialog = state.Admission, why, taskID(task), nil, ""
	a.mu.Unlock()
	a.d.Team.Publish()
}
