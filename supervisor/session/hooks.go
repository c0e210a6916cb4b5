package session

import (
	"time"

	"github.com/wardenhq/warden/protocol/hooks"
	"github.com/wardenhq/warden/supervisor/hookbus"
)

// onHook handles one message from the agent's own hooks: an answer's raw
// text goes to the reader, whose ledger counts it with the screen's (one
// answer seen both ways is one record); the context gauge goes to the
// agent; a structured usage limit pauses the session.
func (s *Session) onHook(m hookbus.Message) {
	if text, ok := hooks.Answer(m.Kind, m.Payload); ok {
		if text != "" && s.cfg.Task != nil {
			s.reader.Offer(text) // its blocks come back as reader events
		}
		return
	}
	switch m.Kind {
	case hooks.KindClaudeStatus:
		if pct, ok := hooks.ClaudeStatusLine(m.Payload); ok {
			s.r.Gauge(pct)
		}
		s.structuredLimit(hooks.ClaudeRateLimits(m.Payload))
	case hooks.KindCodexTokenCount:
		if pct, ok := hooks.CodexTokenCount(m.Payload); ok {
			s.r.Gauge(pct)
		}
		s.structuredLimit(hooks.CodexRateLimits(m.Payload))
	case hooks.KindGeminiAfterModel:
		if pct, ok := hooks.GeminiPercent(m.Payload, 0); ok {
			s.r.Gauge(pct)
		}
	case hooks.KindClaudeStopFailure:
		if kind, _, ok := hooks.ClaudeStopFailure(m.Payload); ok && kind == "rate_limit" {
			s.usageLimit(time.Time{}, "Claude Code: turn ended on a rate limit (StopFailure)")
		}
	}
}

// structuredLimit pauses the agent when a CLI reports a usage window used up.
func (s *Session) structuredLimit(limits []hooks.RateLimit) {
	for _, l := range limits {
		if l.UsedPercent >= 100 {
			var reset time.Time
			if l.ResetsAt > 0 {
				reset = time.Unix(l.ResetsAt, 0)
			}
			s.usageLimit(reset, "usage window "+l.Window+" used up")
			return
		}
	}
}
