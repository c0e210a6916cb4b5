package session

import (
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/event"
)

// usageLimit pauses the session until reset (plus a minute), or for
// usage_limit_wait when the reset time is unknown: no checkpoint requests, no
// stale alarms, no restart. Then the agent is told to continue.
func (s *Session) usageLimit(reset time.Time, text string) {
	if s.mon == nil || s.mon.paused() {
		return
	}
	now := s.cfg.Clock.Now()
	until := reset.Add(s.cfg.Timers.UsageLimitMargin)
	if reset.IsZero() || !reset.After(now) {
		until = now.Add(s.cfg.Timers.UsageLimitWait)
	}
	s.mon.pause(until)
	s.r.Paused(until) // state.json shows it before the event says so
	s.log.Warn("usage limit: agent paused", "until", until, "banner", text)
	s.r.Event(event.UsageLimitWait, "until", until.UTC().Format(time.RFC3339), "reset", formatTime(reset), "text", text)
	s.r.Printf("WARNING: %s hit a usage limit; waiting until %s\n", s.cfg.Agent, until.Local().Format("2006-01-02 15:04 MST"))
}

// settled runs when the agent's output has been quiet for the profile's
// settle time: the reader parses the screen, and a TUI's screen is checked
// for a usage-limit banner.
func (s *Session) settled() {
	s.reader.Quiet()
	if s.prof.Mode == protocol.ModeScreen && s.cfg.Task != nil {
		s.push(readerEvent{settled: true})
	}
}

// limitWatch is what a session remembers of usage-limit banners.
type limitWatch struct {
	banner    string // a banner seen once on the screen, at bannerAt
	bannerAt  time.Time
	oldBanner string // on screen when the last pause ended: not a new limit
}

// bannerRecheck is when a banner seen once is read again: it counts only
// when it is still there, the same, on a later read.
const bannerRecheck = 2 * time.Second

// checkBanner reads the profile's usage-limit banner off the screen; the
// same banner on two reads bannerRecheck apart pauses the agent.
func (s *Session) checkBanner() {
	if s.mon == nil || s.mon.paused() {
		return
	}
	now := s.cfg.Clock.Now()
	w := &s.limits
	reset, ok, text := s.prof.UsageLimit(s.screen(), now)
	switch {
	case !ok:
		w.banner, w.oldBanner = "", ""
	case text == w.oldBanner:
		// the banner of the limit already waited out, still in the transcript
	case w.banner == text && now.Sub(w.bannerAt) >= bannerRecheck/2:
		w.banner = ""
		s.usageLimit(reset, text)
	case w.banner != text:
		w.banner, w.bannerAt = text, now
		s.cfg.Clock.AfterFunc(bannerRecheck, func() { s.push(readerEvent{settled: true}) })
	}
}

// resume tells the agent to continue after a usage-limit pause.
func (s *Session) resume() {
	s.log.Info("usage limit over: telling the agent to continue")
	s.r.Paused(time.Time{})
	if _, ok, text := s.prof.UsageLimit(s.screen(), s.cfg.Clock.Now()); ok {
		s.limits.oldBanner = text
	}
	s.limits.banner = ""
	s.typeText(s.prof.Continue())
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
