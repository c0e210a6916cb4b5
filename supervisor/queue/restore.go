package queue

import "time"

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
