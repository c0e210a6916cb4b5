// Package clock is the time source that warden's policies and timers take,
// so that restart backoff, checkpoint timers, stale detection, the screen's
// settle, typing pauses and the echo window can be tested without sleeping.
// Real is the wall clock; Fake moves only when a test advances it.
package clock

import (
	"context"
	"time"
)

// Clock tells the time and makes timers.
type Clock interface {
	Now() time.Time
	// After is time.After: the channel receives once, d from now.
	After(d time.Duration) <-chan time.Time
	// NewTimer is time.NewTimer: its channel receives once, d from now,
	// unless it is stopped first.
	NewTimer(d time.Duration) Timer
	// AfterFunc is time.AfterFunc: f runs once, d from now, unless the
	// timer is stopped first.
	AfterFunc(d time.Duration, f func()) Timer
	// Sleep is time.Sleep.
	Sleep(d time.Duration)
}

// Timer is a timer a Clock made: time.Timer's methods, its channel as C()
// (nil for a timer made by AfterFunc).
type Timer interface {
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it stopped
	// it (false: it had fired or was stopped already).
	Stop() bool
	// Reset makes the timer fire d from now; it reports whether it was
	// still pending.
	Reset(d time.Duration) bool
}

// Since is the time elapsed since t on c.
func Since(c Clock, t time.Time) time.Duration { return c.Now().Sub(t) }

// WithTimeout is context.WithTimeout on c: the context ends d from now as c
// tells it (on the wall clock, context.WithTimeout itself).
func WithTimeout(parent context.Context, c Clock, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := c.(Real); ok {
		return context.WithTimeout(parent, d)
	}
	ctx, cancel := context.WithCancelCause(parent)
	t := c.AfterFunc(d, func() { cancel(context.DeadlineExceeded) })
	return &deadlineCtx{ctx}, func() {
		t.Stop()
		cancel(context.Canceled)
	}
}

// deadlineCtx reports context.DeadlineExceeded as its error when its
// timer ended it, as a context.WithTimeout does.
type deadlineCtx struct{ context.Context }

func (c *deadlineCtx) Err() error {
	if c.Context.Err() == nil {
		return nil
	}
	return context.Cause(c.Context)
}

// Real is the wall clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// After returns time.After(d).
func (Real) After(d time.Duration) <-chan time.Time { return time.After(d) }

// NewTimer returns time.NewTimer(d).
func (Real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

// AfterFunc returns time.AfterFunc(d, f).
func (Real) AfterFunc(d time.Duration, f func()) Timer { return realTimer{time.AfterFunc(d, f)} }

// Sleep is time.Sleep(d).
func (Real) Sleep(d time.Duration) { time.Sleep(d) }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time        { return r.t.C }
func (r realTimer) Stop() bool                 { return r.t.Stop() }
func (r realTimer) Reset(d time.Duration) bool { return r.t.Reset(d) }
