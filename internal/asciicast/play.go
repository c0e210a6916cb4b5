package asciicast

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// PlayOptions tune a replay.
type PlayOptions struct {
	// Speed divides every pause (≤ 0: 1).
	Speed float64
	// IdleLimit caps every pause before Speed divides it (0: the header's
	// idle_time_limit, or DefaultIdleLimit).
	IdleLimit time.Duration
	// Pause toggles pausing: each receive pauses or resumes (nil: never).
	Pause <-chan struct{}
	// Resize takes the recording's resize events, in their place (nil:
	// they are skipped).
	Resize func(cols, rows int)
	// Now and Sleep are the clock (nil: the real one). Sleep waits d, or
	// until ctx is done, and returns how long it was paused meanwhile.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) (paused time.Duration, err error)
}

// Play writes the output events of r to w at the pace they were recorded:
// each at its time since the start, with every pause capped at the idle
// limit and divided by the speed; the schedule is kept against the clock,
// so slow writes do not add up. Resize events go to o.Resize (a player
// cannot resize its terminal; a view of it can draw the program's screen at
// its new size). It returns ctx's error when ctx is done first, and
// nil at the end of the recording.
func Play(ctx context.Context, r *Reader, w io.Writer, o PlayOptions) error {
	speed := o.Speed
	if speed <= 0 {
		speed = 1
	}
	idle := o.IdleLimit
	if idle <= 0 {
		idle = r.Header.IdleLimit()
	}
	now, sleep := o.Now, o.Sleep
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = func(ctx context.Context, d time.Duration) (time.Duration, error) {
			return realSleep(ctx, d, o.Pause)
		}
	}
	base := now()
	var due time.Duration // when the next event is due, after base
	prev := 0.0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if ev.Time > prev {
			gap := min(time.Duration((ev.Time-prev)*float64(time.Second)), idle)
			due += time.Duration(float64(gap) / speed)
			prev = ev.Time
		}
		if d := due - now().Sub(base); d > 0 {
			paused, err := sleep(ctx, d)
			if err != nil {
				return err
			}
			base = base.Add(paused)
		}
		if ev.Code == Resize && o.Resize != nil {
			if cols, rows, err := ev.Size(); err == nil {
				o.Resize(cols, rows)
			}
		}
		if ev.Code != Output {
			continue
		}
		if _, err := io.WriteString(w, ev.Data); err != nil {
			return fmt.Errorf("replay output: %w", err)
		}
	}
}

// realSleep waits d on a timer, or until ctx is done; a receive on pause
// stops the wait until the next receive, and the paused time is returned.
func realSleep(ctx context.Context, d time.Duration, pause <-chan struct{}) (time.Duration, error) {
	deadline := time.Now().Add(d)
	t := time.NewTimer(d)
	defer t.Stop()
	var paused time.Duration
	for {
		select {
		case <-ctx.Done():
			return paused, ctx.Err()
		case <-t.C:
			return paused, nil
		case <-pause:
			at := time.Now()
			t.Stop()
			select {
			case <-ctx.Done():
				return paused, ctx.Err()
			case <-pause:
			}
			p := time.Since(at)
			paused += p
			deadline = deadline.Add(p)
			t.Reset(max(time.Until(deadline), 0))
		}
	}
}
