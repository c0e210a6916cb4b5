package queue

// OnEnd makes fn hear of every task that ends (complete or failed) and of
// every task handed over to another agent after its own failed (AgentFailed
// released it): whoever waits on the task's agent stops waiting (on_overlap
// = "serialize"). fn is called after the queue's lock is released, so that
// it may read the queue. Call it before the team runs.
func (q *Queue) OnEnd(fn func(id string)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.onEnd = fn
}

// StateOf is where task id stands ("" for no such task).
func (q *Queue) StateOf(id string) State {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil {
		return t.state
	}
	return ""
}

// ended tells OnEnd's fn of ids (q.mu not held); fn is read under the lock.
func (q *Queue) ended(ids ...string) {
	q.mu.Lock()
	fn := q.onEnd
	q.mu.Unlock()
	if fn == nil {
		return
	}
	for _, id := range ids {
		fn(id)
	}
}
