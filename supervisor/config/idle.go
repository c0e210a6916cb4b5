package config

// idle reads idle_after and idle_nudges (Team.IdleAfter): how long an
// agent's checkpoints may stand still at its prompt before warden nudges
// it, and how many nudges a task gets before a person is told. idle_after
// must be longer than checkpoint_interval (the checkpoints it watches come
// that often); when it is left out and checkpoint_interval is not shorter
// than its default, it is twice checkpoint_interval. "0s" turns the watch
// off.
func (d *decoder) idle(t *Team, top table) {
	after, ok := top.durationOrZero("idle_after", t.IdleAfter)
	t.IdleNudges = top.integer("idle_nudges", int64(t.IdleNudges), 0, 100, "between 0 and 100")
	_, set := top.vals["idle_after"]
	switch {
	case !ok:
	case !set && after <= t.CheckpointInterval:
		after = 2 * t.CheckpointInterval
	case after > 0 && after <= t.CheckpointInterval:
		d.errorf("idle_after", "idle_after (%s) must be longer than checkpoint_interval (%s), or \"0s\" for no idle watch",
			after, t.CheckpointInterval)
	}
	t.IdleAfter = after
}
