package clock

import (
	"slices"
	"sync"
	"time"
)

// Fake is a manual clock for tests: time moves only by Advance. Its timers
// fire during Advance, in the order they are due: a channel receives, an
// AfterFunc's f runs on the goroutine that called Advance (after the
// clock's lock is released, so f may use the clock), before Advance
// returns — a test sees what a timer did as soon as Advance is done.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	waiters []*fakeTimer
}

// fakeTimer is one pending timer of a Fake: it sends on ch, or runs fn.
type fakeTimer struct {
	f   *Fake
	at  time.Time
	ch  chan time.Time
	fn  func()
	set bool // pending in f.waiters
}

// NewFake returns a fake clock set to start.
func NewFake(start time.Time) *Fake { return &Fake{now: start} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// After returns a channel that fires once the fake time has been advanced
// d past the current fake time (at once when d <= 0).
func (f *Fake) After(d time.Duration) <-chan time.Time { return f.NewTimer(d).C() }

// NewTimer returns a timer whose channel fires once the fake time has been
// advanced d past the current fake time (at once when d <= 0).
func (f *Fake) NewTimer(d time.Duration) Timer {
	t := &fakeTimer{f: f, ch: make(chan time.Time, 1)}
	t.Reset(d)
	return t
}

// AfterFunc returns a timer that runs fn once the fake time has been
// advanced d past the current fake time; when d <= 0, fn runs at once on a
// goroutine of its own, as time.AfterFunc(0, fn) does.
func (f *Fake) AfterFunc(d time.Duration, fn func()) Timer {
	t := &fakeTimer{f: f, fn: fn}
	t.Reset(d)
	return t
}

// Sleep blocks until the fake time has been advanced d.
func (f *Fake) Sleep(d time.Duration) { <-f.After(d) }

// Advance moves the fake time forward by d, firing every timer that is due
// on the way, earliest first, with the clock set to its due time as it
// fires: a timer set again by what fired (an AfterFunc that resets itself)
// fires again when that is still within d.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	target := f.now.Add(d)
	f.mu.Unlock()
	for {
		f.mu.Lock()
		t := f.nextDue(target)
		if t == nil {
			f.now = later(f.now, target)
			f.mu.Unlock()
			return
		}
		f.remove(t)
		f.now = later(f.now, t.at)
		now := f.now
		f.mu.Unlock()
		if t.fn != nil {
			t.fn()
			continue
		}
		select {
		case t.ch <- now:
		default: // fired before and not drained: as time.Timer, one value at a time
		}
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// AdvanceToNext moves the fake time forward to when the earliest pending
// timer is due and fires what is due then; it reports false (and does
// nothing) when no timer is pending.
func (f *Fake) AdvanceToNext() bool {
	f.mu.Lock()
	if len(f.waiters) == 0 {
		f.mu.Unlock()
		return false
	}
	next := f.waiters[0].at
	for _, w := range f.waiters[1:] {
		if w.at.Before(next) {
			next = w.at
		}
	}
	d := max(next.Sub(f.now), 0)
	f.mu.Unlock()
	f.Advance(d)
	return true
}

// Waiters reports how many timers are pending; tests use it to know that
// the code under test has reached its wait before they advance the clock.
func (f *Fake) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}

// nextDue is the earliest pending timer due by until, or nil (f.mu held).
func (f *Fake) nextDue(until time.Time) *fakeTimer {
	var first *fakeTimer
	for _, w := range f.waiters {
		if !w.at.After(until) && (first == nil || w.at.Before(first.at)) {
			first = w
		}
	}
	return first
}

// remove takes t off the pending list (f.mu held); it reports whether t
// was pending.
func (f *Fake) remove(t *fakeTimer) bool {
	if !t.set {
		return false
	}
	t.set = false
	f.waiters = slices.DeleteFunc(f.waiters, func(w *fakeTimer) bool { return w == t })
	return true
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	return t.f.remove(t)
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	f := t.f
	f.mu.Lock()
	was := f.remove(t)
	now := f.now
	if d <= 0 {
		f.mu.Unlock()
		if t.fn != nil {
			go t.fn()
			return was
		}
		select {
		case t.ch <- now:
		default:
		}
		return was
	}
	t.at, t.set = now.Add(d), true
	f.waiters = append(f.waiters, t)
	f.mu.Unlock()
	return was
}
