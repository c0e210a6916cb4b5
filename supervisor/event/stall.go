package event

// StallReason is why an agent stalled, in a person's words, from
// agent_stalled's fields: why (silent or no_checkpoint), silent_for,
// no_checkpoint_for and rejected (what its answers were rejected for).
// agent_restarted's reason after a stall and the run's report say it so.
// An event written before why was (silent_for alone) says no progress.
func StallReason(why, silentFor, noCheckpointFor, rejected string) string {
	switch {
	case why == "silent":
		return "stalled (no output for " + silentFor + ")"
	case why == "no_checkpoint" && rejected != "":
		return "stalled (no valid checkpoint for " + noCheckpointFor + ": its answers were rejected: " + rejected + ")"
	case why == "no_checkpoint":
		return "stalled (no checkpoint for " + noCheckpointFor + ", though it printed)"
	}
	return "stalled (no progress for " + silentFor + ")"
}
