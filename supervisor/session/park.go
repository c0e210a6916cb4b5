package session

import (
	"context"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A session is parked while its account is at its usage limit (DESIGN §6
// "Account"): the monitor's clocks stop (no checkpoint request, nothing
// stale), the typist types nothing, and — unless the CLI itself shows the
// limit, where it sends nothing until the reset or until something is
// typed — its process group is stopped (SIGSTOP), so that it spends none
// of the account's requests (a Gemini CLI whose turn meets the limit
// retries hundreds of times a second). At the account's reset plus a
// margin the group is continued (SIGCONT) and the agent carries on: by
// itself (it never met the limit), by the CLI's own continue (Claude
// Code's, awaited, never typed twice), by the CLI's limit dialog kept
// (Gemini CLI's Keep trying), or by `continue` typed once; then one
// checkpoint request at its next turn boundary.

// parkPhase is where a session stands with its account's limit.
type parkPhase int

const (
	parkFree     parkPhase = iota // working
	parkParked                    // the account is parked: held, maybe frozen
	parkAwaiting                  // the account resumed; the CLI's own continue is awaited
)

// autoResumeGrace is how long after the limit's reset the CLI's own
// continue is awaited (Claude Code fires 30 to 120 s after the reset):
// then, still showing its limit and its armed continue, the CLI gets
// `continue` typed once.
const autoResumeGrace = 3 * time.Minute

// parkWatch is the session's park: the loop's part (phase, its times, the
// freeze) and what other goroutines read or set (held, epoch, the order).
type parkWatch struct {
	phase  parkPhase
	since  time.Time     // when it was parked
	until  time.Time     // the account's plan (state.json), zero: not said yet
	frozen bool          // its process group is stopped
	autoBy time.Time     // parkAwaiting: type `continue` if the CLI has not gone on by then
	total  time.Duration // parked so far, ended parks (max_time does not count them)

	held  atomic.Bool  // the typist types nothing
	epoch atomic.Int64 // parks so far: a request queued before one is dropped
	order parkOrder
	// gate is held while a park is ordered (Park sets held at once) and
	// while a request's checkpoint_requested is written: a request
	// written after Park returned is never typed (issue 31's simulation,
	// seed 213: a request typed at the instant the budget held the agent).
	gate sync.Mutex
}

// parkOrder is what the account last asked of the session.
type parkOrder struct {
	mu    sync.Mutex
	park  bool
	until time.Time
}

// Park parks the session for its account's usage limit until Unpark;
// until is when the account plans to go on (shown in state.json). Any
// goroutine; the session acts on it at once.
func (s *Session) Park(until time.Time) {
	s.park.order.mu.Lock()
	s.park.order.park, s.park.order.until = true, until
	s.park.order.mu.Unlock()
	s.park.gate.Lock()
	s.park.held.Store(true) // the typist types nothing from now on
	s.park.gate.Unlock()
	s.push(readerEvent{park: true})
}

// Unpark ends the park: the account's limit has reset. Any goroutine.
func (s *Session) Unpark() {
	s.park.order.mu.Lock()
	s.park.order.park = false
	s.park.order.mu.Unlock()
	s.push(readerEvent{park: true})
}

// Parked reports whether the session is parked or awaits its CLI's own
// continue after the account's reset (any goroutine).
func (s *Session) Parked() bool { return s.park.held.Load() }

// applyPark (the loop) carries out the account's last order.
func (s *Session) applyPark() {
	o := &s.park.order
	o.mu.Lock()
	park, until := o.park, o.until
	o.mu.Unlock()
	if park {
		s.onPark(until)
		return
	}
	switch s.park.phase {
	case parkParked:
		s.onUnpark()
	case parkFree: // parked and released before the loop saw it: Park's hold undone
		s.park.held.Store(false)
	}
}

// onPark holds the session: the account is at its limit (or this CLI
// showed it, and the account's word follows). Its group is stopped unless
// the CLI shows the limit itself.
func (s *Session) onPark(until time.Time) {
	p := &s.park
	now := s.cfg.Clock.Now()
	switch p.phase {
	case parkFree:
		p.phase, p.since = parkParked, now
		p.held.Store(true)
		p.epoch.Add(1)
		if s.mon != nil {
			s.mon.hold()
		}
		if !s.metLimit(now) {
			s.freeze()
		}
		s.log.Info("parked: the account is at its usage limit", "frozen", p.frozen)
	case parkAwaiting: // the account met its limit again before the CLI went on
		p.phase, p.autoBy = parkParked, time.Time{}
	}
	if !until.IsZero() && !until.Equal(p.until) {
		p.until = until
		s.r.Paused(until) // state.json shows it
	}
}

// metLimit reports whether the CLI itself showed the limit (its screen now,
// or its hooks): then it sends nothing until the reset or until something
// is typed, and is not stopped.
func (s *Session) metLimit(now time.Time) bool {
	w := &s.limits
	if w.own == nil {
		if l, ok := s.reachedLimit(now); ok && l.Text != w.oldBanner {
			w.own = &l
		}
	}
	return w.own != nil || w.hooked
}

// onUnpark (the account's limit has reset) continues the group and lets
// the agent carry on the way its CLI needs.
func (s *Session) onUnpark() {
	p, w := &s.park, &s.limits
	s.thaw()
	s.r.Paused(time.Time{})
	now := s.cfg.Clock.Now()
	l, shown := s.reachedLimit(now)
	if shown && l.Text != w.oldBanner {
		w.own = &l
	}
	switch {
	case w.own == nil && !w.hooked:
		s.log.Info("the account's limit reset: the agent carries on by itself (it never met the limit)")
		s.releasePark(now)
	case s.keepLimitDialog():
		s.releasePark(now) // the dialog's keep sends the turn again
	case w.autoFired:
		s.log.Info("the account's limit reset: the CLI went on by itself already")
		s.releasePark(now)
	case w.own != nil && w.own.AutoResume && !w.noAuto:
		p.phase = parkAwaiting
		p.autoBy = latest(w.own.Reset, now).Add(autoResumeGrace)
		s.log.Info("the account's limit reset: waiting for the CLI's own continue", "until", p.autoBy)
	default:
		s.continueOnce(now, "the account's limit reset")
	}
	if shown {
		w.oldBanner = l.Text // still on the screen: not a new limit
	}
}

// awaitCLI (the loop, while parkAwaiting) watches for the CLI's own
// continue: its hook said so, or its screen no longer shows the limit (its
// continue runs, or ran). `continue` is typed once if the CLI says it will
// not continue, or still shows its limit at autoBy.
func (s *Session) awaitCLI(now time.Time) {
	p, w := &s.park, &s.limits
	if p.phase != parkAwaiting || p.frozen {
		return
	}
	l, shown := s.reachedLimit(now)
	switch {
	case w.autoFired || !shown:
		s.log.Info("the CLI continued by itself after its limit's reset")
		s.releasePark(now)
	case w.noAuto || !l.AutoResume:
		s.continueOnce(now, "the CLI will not continue by itself")
	case !now.Before(p.autoBy):
		s.continueOnce(now, "the CLI did not continue by itself after its limit's reset")
	}
}

// continueOnce types the profile's continue, once for this park, and
// releases the session.
func (s *Session) continueOnce(now time.Time, why string) {
	s.log.Info("typing continue", "why", why)
	s.releasePark(now)
	s.typeText(s.prof.Continue())
}

// releasePark ends the park: the typist goes on, the clocks start again
// from now with one checkpoint request at the next turn boundary.
func (s *Session) releasePark(now time.Time) {
	p, w := &s.park, &s.limits
	if p.phase == parkFree {
		return
	}
	p.total += now.Sub(p.since)
	p.phase, p.until, p.autoBy = parkFree, time.Time{}, time.Time{}
	w.own, w.hooked, w.noAuto, w.autoFired, w.banner = nil, false, false, false, ""
	if s.mon != nil {
		s.mon.release(now)
	}
	p.held.Store(false)
}

// parkWake is when the loop must look at the park again (zero: never).
func (s *Session) parkWake() time.Time {
	p := &s.park
	if p.phase != parkAwaiting {
		return time.Time{}
	}
	return p.autoBy
}

// parkedFor is how long the session has been parked, ended parks and the
// one under way.
func (s *Session) parkedFor(now time.Time) time.Duration {
	p := &s.park
	if p.phase == parkFree {
		return p.total
	}
	return p.total + now.Sub(p.since)
}

// freeze stops the process group: a CLI mid-turn sends nothing more.
func (s *Session) freeze() {
	if err := s.proc.Signal(syscall.SIGSTOP); err != nil {
		s.log.Warn("the parked agent could not be stopped", "error", err)
		return
	}
	s.park.frozen = true
}

// thaw continues a frozen process group (the park's end, or the session's).
func (s *Session) thaw() {
	if !s.park.frozen {
		return
	}
	if err := s.proc.Signal(syscall.SIGCONT); err != nil {
		s.log.Warn("the parked agent could not be continued", "error", err)
	}
	s.park.frozen = false
}

// waitUnheld holds the typist while the session is parked. It returns
// false when ctx ends first.
func (s *Session) waitUnheld(ctx context.Context) bool {
	return s.pollUntil(ctx, 100*time.Millisecond, 0, func() bool { return !s.park.held.Load() })
}
