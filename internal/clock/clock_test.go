//go:build !e2e

package clock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func fired(ch <-chan time.Time) (time.Time, bool) {
	select {
	case at := <-ch:
		return at, true
	default:
		return time.Time{}, false
	}
}

func TestFakeTimersFireWhenDueInOrder(t *testing.T) {
	f := NewFake(start)
	var mu sync.Mutex
	var order []string
	note := func(s string) func() {
		return func() { mu.Lock(); order = append(order, s); mu.Unlock() }
	}
	f.AfterFunc(300*time.Millisecond, note("300ms"))
	f.AfterFunc(100*time.Millisecond, note("100ms"))
	timer := f.NewTimer(200 * time.Millisecond)
	after := f.After(time.Second)
	if f.Waiters() != 4 {
		t.Fatalf("%d waiters, want 4", f.Waiters())
	}
	f.Advance(99 * time.Millisecond)
	if len(order) != 0 {
		t.Fatalf("fired early: %v", order)
	}
	f.Advance(201 * time.Millisecond) // now +300ms: three are due, in their order
	if want := []string{"100ms", "300ms"}; len(order) != 2 || order[0] != want[0] || order[1] != want[1] {
		t.Fatalf("order %v, want %v", order, want)
	}
	if at, ok := fired(timer.C()); !ok || !at.Equal(start.Add(200*time.Millisecond)) { // at its due time
		t.Fatalf("timer: fired %v at %v", ok, at)
	}
	if _, ok := fired(after); ok {
		t.Fatal("After(1s) fired at 300ms")
	}
	if !f.AdvanceToNext() || !f.Now().Equal(start.Add(time.Second)) {
		t.Fatalf("AdvanceToNext moved to %v", f.Now())
	}
	if _, ok := fired(after); !ok {
		t.Fatal("After(1s) did not fire at 1s")
	}
	if f.Waiters() != 0 || f.AdvanceToNext() {
		t.Fatalf("%d waiters left", f.Waiters())
	}
}

func TestFakeTimerStopAndReset(t *testing.T) {
	f := NewFake(start)
	ran := 0
	tm := f.AfterFunc(time.Second, func() { ran++ })
	if !tm.Stop() || tm.Stop() {
		t.Fatal("Stop: want true once, then false")
	}
	f.Advance(2 * time.Second)
	if ran != 0 {
		t.Fatal("a stopped timer ran")
	}
	if tm.Reset(time.Second) {
		t.Fatal("Reset of a stopped timer reported it pending")
	}
	f.Advance(999 * time.Millisecond)
	if !tm.Reset(time.Second) { // pushed back before it was due
		t.Fatal("Reset of a pending timer reported it not pending")
	}
	f.Advance(999 * time.Millisecond)
	if ran != 0 {
		t.Fatal("ran before its reset time")
	}
	f.Advance(time.Millisecond)
	if ran != 1 {
		t.Fatalf("ran %d times, want 1", ran)
	}
}

// An AfterFunc that sets itself again for a time still within the advance
// fires again in the same Advance, as it would on the wall clock.
func TestFakeAdvanceFiresWhatFiringSetsAgain(t *testing.T) {
	f := NewFake(start)
	var times []time.Time
	var tm Timer
	tm = f.AfterFunc(100*time.Millisecond, func() {
		times = append(times, f.Now())
		if len(times) < 3 {
			tm.Reset(100 * time.Millisecond)
		}
	})
	f.Advance(time.Second)
	if len(times) != 3 {
		t.Fatalf("fired %d times, want 3", len(times))
	}
}

func TestFakeSleepAndZeroDurations(t *testing.T) {
	f := NewFake(start)
	if _, ok := fired(f.After(0)); !ok {
		t.Fatal("After(0) did not fire at once")
	}
	done := make(chan struct{})
	f.AfterFunc(0, func() { close(done) })
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("AfterFunc(0) did not run")
	}
	slept := make(chan struct{})
	go func() { f.Sleep(time.Minute); close(slept) }()
	for f.Waiters() == 0 {
		time.Sleep(time.Millisecond)
	}
	f.Advance(time.Minute)
	select {
	case <-slept:
	case <-time.After(5 * time.Second):
		t.Fatal("Sleep(1m) did not return after the clock moved 1m")
	}
}

func TestWithTimeoutOnAFakeClock(t *testing.T) {
	f := NewFake(start)
	ctx, cancel := WithTimeout(context.Background(), f, time.Second)
	defer cancel()
	f.Advance(999 * time.Millisecond)
	if ctx.Err() != nil {
		t.Fatal("ended before its timeout")
	}
	f.Advance(time.Millisecond)
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("err %v, want DeadlineExceeded", ctx.Err())
	}
	ctx2, cancel2 := WithTimeout(context.Background(), f, time.Second)
	cancel2()
	if !errors.Is(ctx2.Err(), context.Canceled) || f.Waiters() != 0 {
		t.Fatalf("cancelled: err %v, %d waiters", ctx2.Err(), f.Waiters())
	}
}

func TestRealClock(t *testing.T) {
	c := Real{}
	ctx, cancel := WithTimeout(context.Background(), c, 10*time.Millisecond)
	defer cancel()
	if _, ok := ctx.Deadline(); !ok {
		t.Fatal("the wall clock's timeout has no deadline")
	}
	done := make(chan struct{})
	tm := c.AfterFunc(time.Millisecond, func() { close(done) })
	<-done
	if tm.Stop() {
		t.Fatal("Stop of a fired timer reported it pending")
	}
	nt := c.NewTimer(time.Millisecond)
	<-nt.C()
	began := c.Now()
	c.Sleep(5 * time.Millisecond)
	if Since(c, began) < 5*time.Millisecond {
		t.Fatal("Sleep returned early")
	}
	<-ctx.Done()
}
