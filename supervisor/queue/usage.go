package queue

import "github.com/wardenhq/warden/protocol"

// AddUsage adds what one of the task's sessions spent since its last
// report to the task's figures for the run, and returns them.
func (q *Queue) AddUsage(id string, d protocol.Usage) protocol.Usage {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.byID[id]
	if t == nil {
		return protocol.Usage{}
	}
	t.usage = t.usage.Plus(d)
	return t.usage.Clone()
}

// Usage is what the task's sessions spent in the run so far.
func (q *Queue) Usage(id string) protocol.Usage {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil {
		return t.usage.Clone()
	}
	return protocol.Usage{}
}

// RestoreUsage gives the task what a run carried on had spent on it.
func (q *Queue) RestoreUsage(id string, u *protocol.Usage) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil && u != nil {
		t.usage = u.Clone()
	}
}

// usageOf is a task's figures as its Status shows them (nil: nothing spent
// yet).
func usageOf(t *taskState) *protocol.Usage {
	if t.usage.Zero() {
		return nil
	}
	u := t.usage.Clone()
	return &u
}
