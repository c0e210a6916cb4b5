package supervisor

import "time"

// EvUsageLimitWait: an agent hit a usage limit and waits for its reset.
const EvUsageLimitWait = "usage_limit_wait"

// UsageLimitMargin is added to a parsed reset time before the agent is told
// to continue.
var UsageLimitMargin = time.Minute

// usageLimit pauses the session until reset (plus a minute), or for
// usage_limit_wait when the reset time is unknown: no checkpoint requests, no
// stale alarms, no restart. Then the agent is told to continue.
func (s *session) usageLimit(reset time.Time, text string) {
	if s.mon == nil || s.mon.paused() {
		return
	}
	t := s.a.team
	now := t.clock.Now()
	until := reset.Add(UsageLimitMargin)
	if reset.IsZero() || !reset.After(now) {
		until = now.Add(t.cfg.UsageLimitWait)
	}
	s.mon.pause(until)
	s.a.log.Warn("usage limit: agent paused", "until", until, "banner", text)
	t.events.Emit(EvUsageLimitWait, s.a.cfg.Name, taskID(s.task), "until", until.UTC().Format(time.RFC3339),
		"reset", formatTime(reset), "text", text)
	t.printf("WARNING: %s hit a usage limit; waiting until %s\n", s.a.cfg.Name, until.Local().Format("2006-01-02 15:04 MST"))
	s.a.setPaused(until)
}

// resume tells the agent to continue after a usage-limit pause.
func (s *session) resume() {
	s.a.log.Info("usage limit over: telling the agent to continue")
	s.a.setPaused(time.Time{})
	s.typeText(s.prof.continueText)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
