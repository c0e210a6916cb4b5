package supervisor

import (
	"fmt"
	"os"
	"time"

	"github.com/wardenhq/warden/internal/atomicfile"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/hooks"
	"github.com/wardenhq/warden/supervisor/hookbus"
)

// EvContextThreshold: an agent's context gauge passed context_threshold and
// warden created the signal file (an addition to DESIGN §5's events).
const EvContextThreshold = "context_threshold"

// startHookBus listens on the team's hook socket (the CLIs' hooks reach it
// through `warden hook`) and routes each message to its agent's session. It
// returns the function that stops it.
func (t *Team) startHookBus() func() {
	srv, err := hookbus.Listen(t.log, hookbus.SocketPath(t.dir.Root))
	if err != nil {
		t.log.Warn("hook bus not listening: CLI hooks will spool", "error", err)
		return func() {}
	}
	if old, _, err := hookbus.Drain(t.dir.Root); err == nil && len(old) > 0 {
		t.log.Info("dropped hook messages spooled while warden was not running", "count", len(old))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m := range srv.Messages() {
			t.routeHook(m)
		}
	}()
	return func() {
		srv.Close()
		<-done
	}
}

func (t *Team) routeHook(m hookbus.Message) {
	for _, a := range t.agents {
		if a.cfg.Name != m.Agent {
			continue
		}
		if s := a.currentSession(); s != nil {
			s.push(readerEvent{hook: &m})
			return
		}
	}
	t.log.Debug("hook message for no running session", "agent", m.Agent, "kind", m.Kind)
}

// onHook handles one message from the agent's own hooks: an answer's raw
// text (its blocks count like the screen's, once), the context gauge, or a
// structured usage limit.
func (s *session) onHook(m hookbus.Message) (done bool) {
	var text string
	switch m.Kind {
	case hooks.KindClaudeStop:
		text = hooks.ClaudeStop(m.Payload)
	case hooks.KindGeminiAfterAgent:
		text = hooks.GeminiAfterAgent(m.Payload)
	case hooks.KindCodexNotify:
		var title bool
		if text, _, title = hooks.CodexNotify(m.Payload); title {
			return false
		}
	case hooks.KindClaudeStatus:
		if pct, ok := hooks.ClaudeStatusLine(m.Payload); ok {
			s.gauge(pct)
		}
		s.structuredLimit(hooks.ClaudeRateLimits(m.Payload))
	case hooks.KindCodexTokenCount:
		if pct, ok := hooks.CodexTokenCount(m.Payload); ok {
			s.gauge(pct)
		}
		s.structuredLimit(hooks.CodexRateLimits(m.Payload))
	case hooks.KindGeminiAfterModel:
		if pct, ok := hooks.GeminiPercent(m.Payload, 0); ok {
			s.gauge(pct)
		}
	case hooks.KindClaudeStopFailure:
		if kind, _, ok := hooks.ClaudeStopFailure(m.Payload); ok && kind == "rate_limit" {
			s.usageLimit(time.Time{}, "Claude Code: turn ended on a rate limit (StopFailure)")
		}
	}
	blocks, _ := protocol.ParseBlocks(text)
	for _, b := range blocks {
		// A hook reports the turn that just ended; it may arrive after the
		// next request was typed, so an answer recorded in the epoch before
		// is the same answer, not a new one.
		if e, seen := s.recorded[b.Key()]; seen && e >= int(s.epoch.Load())-1 {
			continue
		}
		if s.onBlock(b) {
			done = true
		}
	}
	return done
}

// gauge records an agent's context fill; past context_threshold it creates
// the signal file (once a generation): team checkpoint, handoff, fresh sessions.
func (s *session) gauge(percent float64) {
	t := s.a.team
	s.a.setContext(percent)
	if percent < float64(t.cfg.ContextThreshold) || !s.g.contextFired.CompareAndSwap(false, true) {
		return
	}
	t.log.Warn("context threshold passed: asking for a team checkpoint", "agent", s.a.cfg.Name,
		"percent", percent, "context_threshold", t.cfg.ContextThreshold)
	t.events.Emit(EvContextThreshold, s.a.cfg.Name, taskID(s.task), "percent", percent, "threshold", t.cfg.ContextThreshold)
	t.printf("WARNING: %s's context is %.0f%% full (context_threshold %d%%): team checkpoint\n", s.a.cfg.Name, percent, t.cfg.ContextThreshold)
	note := fmt.Sprintf("context of %s at %.0f%% (threshold %d%%)\n", s.a.cfg.Name, percent, t.cfg.ContextThreshold)
	if err := os.MkdirAll(t.dir.Root, 0o700); err == nil {
		if err := atomicfile.Write(t.cfg.SignalFile, []byte(note), 0o600); err != nil {
			t.log.Error("signal file not written", "error", err)
		}
	}
}

// structuredLimit pauses the agent when a CLI reports a usage window used up.
func (s *session) structuredLimit(limits []hooks.RateLimit) {
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
