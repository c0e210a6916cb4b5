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
// joins the screen's channels; the context gauge goes to the agent; a usage
// limit pauses the session.
func (s *Session) onHook(m hookbus.Message) {
	f := profile.ReadHook(m.Kind, m.Payload)
	if f.HasAnswer && f.Answer != "" && s.cfg.Task != nil {
		s.reader.Offer(f.Answer) // its blocks come back as reader events
	}
	if f.Dialog != nil {
		s.dialog.hook = f.Dialog
		s.checkDialog()
	}
	if f.HasGauge && !math.IsNaN(f.Gauge) {
		s.r.Gauge(min(max(f.Gauge, 0), 100)) // a gauge is a percentage, whatever a payload says
	}
	s.structuredLimit(f.Limits)
	if f.LimitStop {
		s.usageLimit(time.Time{}, "the turn ended on a rate limit")
	}
}

// structuredLimit pauses the agent when a CLI reports a usage window used up.
func (s *Session) structuredLimit(limits []profile.RateLimit) {
	for _, l := range limits {
		if l.UsedPercent >= 100 {
			var reset time.Time
			if l.ResetsAt > 0 {
				reset = time.Unix(l.ResetsAt, 0)
			}
			if now := s.cfg.Clock.Now(); reset.After(now.Add(maxLimitWait)) {
				reset = now.Add(maxLimitWait) // no usage window resets later than this
			}
			s.usageLimit(reset, "usage window "+l.Window+" used up")
			return
		}
	}
}

// maxLimitWait caps the reset time a hook message may claim.
const maxLimitWait = 24 * time.Hour
