package supervisor

import (
	"time"

	"github.com/wardenhq/warden/protocol"
)

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
	s.a.setPaused(until) // state.json shows it before the event says so
	s.a.log.Warn("usage limit: agent paused", "until", until, "banner", text)
	t.events.Emit(EvUsageLimitWait, s.a.cfg.Name, taskID(s.task), "until", until.UTC().Format(time.RFC3339),
		"reset", formatTime(reset), "text", text)
	t.printf("WARNING: %s hit a usage limit; waiting until %s\n", s.a.cfg.Name, until.Local().Format("2006-01-02 15:04 MST"))
}

// settled runs when the agent's output has been quiet for the profile's
// settle time: the reader parses the screen, and a TUI's screen is checked
// for a usage-limit banner.
func (s *session) settled() {
	s.reader.Quiet()
	if s.prof.Mode == protocol.ModeScreen && s.task != nil {
		s.push(readerEvent{settled: true})
	}
}

// bannerRecheck is when a banner seen once is read again: it counts only
// when it is still there, the same, on a later read.
const bannerRecheck = 2 * time.Second

// checkBanner reads the profile's usage-limit banner off the screen; the
// same banner on two reads bannerRecheck apart pauses the agent.
func (s *session) checkBanner() {
	if s.mon == nil || s.mon.paused() {
		return
	}
	now := s.a.team.clock.Now()
	reset, ok, text := s.prof.UsageLimit(s.screen(), now)
	switch {
	case !ok:
		s.banner, s.oldBanner = "", ""
	case text == s.oldBanner:
		// the banner of the limit already waited out, still in the transcript
	case s.banner == text && now.Sub(s.bannerAt) >= bannerRecheck/2:
		s.banner = ""
		s.usageLimit(reset, text)
	case s.banner != text:
		s.banner, s.bannerAt = text, now
		time.AfterFunc(bannerRecheck, func() { s.push(readerEvent{settled: true}) })
	}
}

// resume tells the agent to continue after a usage-limit pause.
func (s *session) resume() {
	s.a.log.Info("usage limit over: telling the agent to continue")
	s.a.setPaused(time.Time{})
	if _, ok, text := s.prof.UsageLimit(s.screen(), s.a.team.clock.Now()); ok {
		s.oldBanner = text
	}
	s.banner = ""
	s.typeText(s.prof.Continue())
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
