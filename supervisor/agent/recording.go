package agent

// recordings returns how a new session of the agent names its asciicast
// recording (logs/{agent}-{session}.cast), after removing the agent's
// oldest recordings beyond log_keep: with the new one, an agent keeps
// log_keep + 1 sessions' recordings, as it keeps log_keep + 1 terminal logs
// (the live one and log_keep rotated), each at most log_max_size.
func (a *Agent) recordings() func(session string) string {
	keep := a.d.Config.LogKeep
	if keep <= 0 {
		keep = 1
	}
	if n, err := a.d.Dir.PruneCasts(a.cfg.Name, keep); err != nil {
		a.log.Warn("old recordings could not be removed", "error", err)
	} else if n > 0 {
		a.log.Debug("old recordings removed", "count", n, "log_keep", keep)
	}
	return func(session string) string { return a.d.Dir.AgentCast(a.cfg.Name, session) }
}
