package queue

import "github.com/wardenhq/warden/supervisor/config"

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
