package session

import (
	"math"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/hookbus"
)

// onHook handles one message from the agent's own hooks, as the profile of
// the CLI that sends that kind reads it: an answer's raw text goes to the reader, whose ledger counts it
// with the screen's (one answer seen both ways is one record); a dialog
// joins the screen's channels; the context gauge goes to the agent; the
// token file it names is read (usage.go); a usage
// limit is a sign of the account's limit, and the CLI's word on its own
// continue after the reset is kept.
func (s *Session) onHook(m hookbus.Message) {
	f := profile.ReadHook(m.Kind, m.Payload)
	if f.HasAnswer && f.Answer != "" && s.cfg.Task != nil {
		s.reader.Offer(f.Answer) // its blocks come back as reader events
	}
	if f.Dialog != nil {
		s.dialog.hook, s.dialog.hookAt, s.dialog.hookSeen = f.Dialog, s.cfg.Clock.Now(), false
		s.cfg.Clock.AfterFunc(hookGrace, func() { s.push(readerEvent{signals: true}) }) // look again then
		s.checkDialog()
	}
	if f.HasGauge && !math.IsNaN(f.Gauge) {
		s.r.Gauge(min(max(f.Gauge, 0), 100)) // a gauge is a percentage, whatever a payload says
	}
	s.noteUsage(f) // the CLI's token file and its own price, when the message names them (usage.go)
	source := SourceRateLimits
	if m.Kind == profile.KindClaudeStatus {
		source = SourceStatusLine
	}
	s.structuredLimit(f.Limits, source)
	if f.LimitStop {
		s.turnLimited(SourceStopFailure, "the turn ended on a rate limit")
	}
	if f.LimitResumed {
		s.limits.autoFired = true
		s.log.Info("the CLI says it continued by itself after its usage limit's reset")
		s.r.LimitOver()
		s.awaitCLI(s.cfg.Clock.Now())
	}
	if f.NoAutoResume {
		s.limits.noAuto = true
		s.log.Info("the CLI says it will not continue by itself after its usage limit's reset")
		s.awaitCLI(s.cfg.Clock.Now())
	}
}

// turnLimited: the CLI says a turn failed on its account's limit; the
// reset is the one a structured report gave a moment before, if any.
func (s *Session) turnLimited(source, text string) {
	s.limits.hooked = true
	l := LimitSign{Source: source, Text: text}
	if r := s.limits.structReset; r.After(s.cfg.Clock.Now()) {
		l.Reset, l.Exact = r, true // the status line said when, a moment before
	}
	s.limitSign(l)
}

// structuredLimit: a usage window the CLI reports used up, with a reset
// still to come (or none given), is a sign of the account's limit; one whose
// reset has passed is over.
func (s *Session) structuredLimit(limits []profile.RateLimit, source string) {
	now := s.cfg.Clock.Now()
	for _, l := range limits {
		reset, used := usedUp(l, now)
		if !used {
			continue
		}
		if !reset.IsZero() {
			s.limits.structReset = reset
		}
		s.limits.hooked = true
		s.limitSign(LimitSign{Reset: reset, Exact: !reset.IsZero(), Source: source, Text: "usage window " + l.Window + " used up"})
		return
	}
}

// usedUp reports whether window l is used up at now, and its reset (zero:
// none given), at most the window's length from now (windowLength); a
// window whose reset has passed is not used up.
func usedUp(l profile.RateLimit, now time.Time) (time.Time, bool) {
	if l.UsedPercent < 100 {
		return time.Time{}, false
	}
	if l.ResetsAt <= 0 {
		return time.Time{}, true
	}
	reset := time.Unix(l.ResetsAt, 0)
	if !reset.After(now) {
		return time.Time{}, false // that window has reset
	}
	if most := now.Add(windowLength(l.Window)); reset.After(most) {
		reset = most // no window resets later than its length from now
	}
	return reset, true
}

// maxLimitWait caps the reset time a hook message may claim for a window
// it does not name.
const maxLimitWait = 24 * time.Hour

// windowLength is the longest a usage window can still run (issue 33): a
// reset a report gives is at most that far off — Claude Code's five_hour
// and Codex's primary window five hours, seven_day and secondary seven
// days; a window of another name maxLimitWait.
func windowLength(window string) time.Duration {
	switch window {
	case "five_hour", "primary":
		return 5 * time.Hour
	case "seven_day", "secondary":
		return 7 * 24 * time.Hour
	}
	return maxLimitWait
}
