package queue

import (
	"time"

	"github.com/wardenhq/warden/supervisor/config"
)

// Restore gives a task what a run carried on knew of it: the sessions
// started for it (its next session is attempt+1, and max_attempts counts
// them), its last agent, and the wall time it was worked (max_time counts
// it).
func (q *Queue) Restore(id string, attempt int, owner string, worked time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil {
		t.attempt, t.owner, t.worked = max(t.attempt, attempt), owner, max(t.worked, worked)
	}
}

// TakeOwn gives agent task id, marking it running, when it is pending and
// the agent may take it; else nil. A run carried on takes a session back
// on the task it was on (holder = true), not on the next in file order.
func (q *Queue) TakeOwn(id, agent string) *config.Task {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.byID[id]
	if t == nil || t.state != Pending || (t.cfg.Agent != "" && t.cfg.Agent != agent) || t.cfg.ReviewBy == agent {
		return nil
	}
	t.state, t.owner = Running, agent
	q.refresh()
	c := t.cfg
	return &c
}
