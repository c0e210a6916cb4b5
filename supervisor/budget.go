package supervisor

import (
	"fmt"
	"time"

	"github.com/wardenhq/warden/protocol"
)

// watchBudget ends the run at the team's budget: max_runtime after the
// start, or stop_at (the next such local time), whichever comes first — a
// team checkpoint, then exit, as after_team_checkpoint = "exit". It returns
// the function that stops watching.
func (t *Team) watchBudget() func() {
	now := t.clock.Now()
	var at time.Time
	var why string
	if d := t.cfg.MaxRuntime; d > 0 {
		at, why = now.Add(d), fmt.Sprintf("max_runtime %s reached", d)
	}
	if stop, ok := t.cfg.NextStop(now); ok && (at.IsZero() || stop.Before(at)) {
		at, why = stop, fmt.Sprintf("stop_at %s reached", t.cfg.StopAt)
	}
	if at.IsZero() {
		return func() {}
	}
	t.log.Info("the run ends at its budget", "at", at, "reason", why)
	done := make(chan struct{})
	go func() {
		select {
		case <-t.clock.After(at.Sub(now)):
			t.spent.Store(true)
			t.trigger(trigger{source: "budget", cause: protocol.CauseBudget, reason: why})
		case <-done:
		}
	}()
	return func() { close(done) }
}
