package agent

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor/config"
)

// Decision is what a RestartPolicy says after an exit.
type Decision struct {
	Restart bool          // start the agent again
	Delay   time.Duration // after this backoff
	Failed  bool          // give up: the agent is failed
	Reason  string        // why, for the log and events
	// Count is which restart within the window this is, of Burst (the
	// team file's max_restarts): "restart Count of Burst".
	Count, Burst int
}

// RestartPolicy decides whether and when an exited agent starts again:
// exponential backoff between restarts (Initial, doubled up to Max), reset
// once a run (from Started to Exited) has lasted StableAfter, and a burst
// limit: more than Burst restarts within Window ends in failed. Each delay
// is spread by ±Jitter, so that agents that crashed together do not restart
// in lockstep. It is a plain object driven by an injected clock (and an
// injected random source), so it is tested without processes or sleeps.
type RestartPolicy struct {
	Mode        string
	Burst       int // the team file's max_restarts
	Window      time.Duration
	Initial     time.Duration
	Max         time.Duration
	StableAfter time.Duration
	Jitter      float64        // fraction of each delay, ±; 0 = none
	Rand        func() float64 // in [0,1); math/rand/v2 by default

	clock    clock.Clock
	started  time.Time
	backoff  time.Duration
	restarts []time.Time
}

// NewRestartPolicy returns the policy with warden's defaults: backoff 1s
// doubling to 1m (±20 %), reset after 30s of stable running, and
// max_restarts restarts allowed within 10 minutes.
func NewRestartPolicy(mode string, maxRestarts int, clk clock.Clock) *RestartPolicy {
	return &RestartPolicy{
		Mode:        mode,
		Burst:       maxRestarts,
		Window:      10 * time.Minute,
		Initial:     time.Second,
		Max:         time.Minute,
		StableAfter: 30 * time.Second,
		Jitter:      0.2,
		Rand:        rand.Float64,
		clock:       clk,
	}
}

// Started records that a run began now; call it whenever a process starts.
func (p *RestartPolicy) Started() { p.started = p.clock.Now() }

// Exited decides what follows an exit; success is whether the process
// exited with code 0. A stopping team never restarts anything.
func (p *RestartPolicy) Exited(success, stopping bool) Decision {
	now := p.clock.Now()
	switch {
	case stopping:
		return Decision{Reason: "team is stopping"}
	case p.Mode == config.RestartNever:
		return Decision{Failed: !success, Reason: "restart = never"}
	case p.Mode == config.RestartOnFailure && success:
		return Decision{Reason: "exited successfully"}
	}
	if !p.started.IsZero() && now.Sub(p.started) >= p.StableAfter {
		p.backoff = 0 // a stable run resets the backoff
	}
	p.restarts = p.recent(now)
	if len(p.restarts) >= p.Burst {
		return Decision{Failed: true, Reason: p.limitReached(len(p.restarts))}
	}
	if p.backoff == 0 {
		p.backoff = p.Initial
	} else {
		p.backoff = min(2*p.backoff, p.Max)
	}
	p.restarts = append(p.restarts, now)
	return Decision{Restart: true, Delay: p.jittered(p.backoff), Count: len(p.restarts), Burst: p.Burst,
		Reason: fmt.Sprintf("restart %d of %d within %s", len(p.restarts), p.Burst, p.Window)}
}

// Peek says, recording nothing, whether the agent would be restarted if its
// session failed now (its process ended with its task open, or it
// stalled), and if not why — the reason Exited would give.
func (p *RestartPolicy) Peek() (restart bool, why string) {
	if p.Mode == config.RestartNever {
		return false, "restart = never"
	}
	now, n := p.clock.Now(), 0
	for _, t := range p.restarts {
		if now.Sub(t) < p.Window {
			n++
		}
	}
	if n >= p.Burst {
		return false, p.limitReached(n)
	}
	return true, ""
}

// limitReached is why n restarts within the window end the agent.
func (p *RestartPolicy) limitReached(n int) string {
	return fmt.Sprintf("restart limit reached: %d restarts within %s (max_restarts = %d)", n, p.Window, p.Burst)
}

// recent keeps the restarts that are still inside the burst window.
func (p *RestartPolicy) recent(now time.Time) []time.Time {
	kept := p.restarts[:0]
	for _, t := range p.restarts {
		if now.Sub(t) < p.Window {
			kept = append(kept, t)
		}
	}
	return kept
}

// jittered spreads d by ±Jitter.
func (p *RestartPolicy) jittered(d time.Duration) time.Duration {
	if p.Jitter <= 0 || p.Rand == nil {
		return d
	}
	f := 1 + p.Jitter*(2*p.Rand()-1)
	return time.Duration(float64(d) * f)
}
