package supervisor

// pauseForBudget parks every agent for a person: the team's budget is
// reached and on_budget = "pause".
func (t *Team) pauseForBudget(why string) {
	b := t.book()
	b.paused = true
	b.mu.Unlock()
	t.printf("WARNING: the team's %s: every agent is parked; `warden resume` lets them go on\n", why)
}
