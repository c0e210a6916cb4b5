package agent

import (
	"fmt"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/event"
)

// Restart asks the agent's running session for a last checkpoint, then to
// stop (warden restart); the agent then starts a new session at once, from
// that checkpoint.
func (a *Agent) Restart() error {
	s := a.Session()
	if s == nil {
		return fmt.Errorf("agent %s has no running session (it is %s)", a.cfg.Name, a.Status().State)
	}
	if err := s.Restart(); err != nil {
		return fmt.Errorf("restart %s: %w", a.cfg.Name, err)
	}
	a.log.Info("restart asked for by a person")
	a.d.Events.Emit(event.RestartRequested, a.cfg.Name, taskIDOf(s), "session_id", s.ID())
	return nil
}

// remember keeps the agent's last checkpoint.
func (a *Agent) remember(cp *protocol.Checkpoint) {
	a.mu.Lock()
	a.lastRecord = cp
	a.mu.Unlock()
}

// LastRecord is the last checkpoint the agent made in this run, or nil.
func (a *Agent) LastRecord() *protocol.Checkpoint {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lastRecord
}
