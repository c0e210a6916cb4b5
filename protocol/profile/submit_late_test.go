//go:build !e2e

package profile

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
)

// steppingClock is a fake clock whose waits pass at once: each After moves
// it on by the wait. A poll loop on it runs through its whole window at
// once, in the same number of looks as on a real clock.
type steppingClock struct{ *clock.Fake }

func (c steppingClock) After(d time.Duration) <-chan time.Time {
	ch := c.Fake.After(d)
	c.Fake.Advance(d)
	return ch
}

// phase is what the CLI shows after Enter: s until the time since Enter
// reaches until, then for looks more looks (either may be 0).
type phase struct {
	s     Screen
	until time.Duration
	looks int
}

// qwenAfterEnter sets up Qwen's profile on a stepping clock and returns
// its ready screen, a screen of its turn at work as CI showed it (the
// spinner row above the box's top rule, the box's rows blank), one between
// the two (the box's rows blank, no spinner yet), and the screen function
// Submit meets: ready until Enter (the typed text never shows), then the
// phases in order, the last for good.
func qwenAfterEnter(t *testing.T, w *bytes.Buffer, phases func(ready, between, busy Screen) []phase) (*Profile, func() Screen) {
	t.Helper()
	rec := loadRecording(t, "qwen", "checkpoint-200x50")
	ready := rec.screenAt(t, rec.Typed[0].Offset)
	p := mustProfile(t, "qwen")
	clk := steppingClock{clock.NewFake(time.Date(2026, 11, 29, 13, 40, 0, 0, time.UTC))}
	p.Clock = clk
	p.EnterDelay, p.SubmitWindow, p.EnterTries, p.Poll = 10*time.Millisecond, 50*time.Millisecond, 3, 5*time.Millisecond

	box := slices.IndexFunc(ready.rows, func(r string) bool { return strings.Contains(r, "Type your message") })
	if box < 2 {
		t.Fatalf("no empty input box on the ready screen:\n%s", ready)
	}
	rows := slices.Clone(ready.rows)
	for i := box; i < len(rows); i++ {
		rows[i] = ""
	}
	between := staticScreen{rows: slices.Clone(rows), bracketed: ready.bracketed}
	rows[box-2] = "  ⠋ Herding digital cats... (0s · esc to cancel)"
	busy := staticScreen{rows: rows, bracketed: ready.bracketed}
	if v := p.tui.view(between.rows); v.busy() || v.hasBox || v.dialog() {
		t.Fatalf("the screen between: busy %v, box %v; want neither:\n%s", v.busy(), v.hasBox, between)
	}
	if v := p.tui.view(busy.rows); !v.busy() || v.hasBox {
		t.Fatalf("the turn's screen: busy %v, box %v; want a turn at work, no box:\n%s", v.busy(), v.hasBox, busy)
	}

	ps := phases(ready, between, busy)
	var entered time.Time
	i, looks := 0, 0
	return p, func() Screen {
		if !strings.Contains(w.String(), "\r") {
			return ready
		}
		if entered.IsZero() {
			entered = clk.Now()
		}
		for i < len(ps)-1 {
			ph := &ps[i]
			if clk.Now().Sub(entered) < ph.until {
				break
			}
			if looks < ph.looks {
				looks++
				break
			}
			i, looks = i+1, 0
		}
		return ps[i].s
	}
}

// Qwen Code on a loaded machine drew its turn 2 s after Enter — the spinner
// row, the box hidden under it — just after Submit's wait for the turn had
// taken its last look (CI: the next look saw the turn at work, and Submit
// gave up "no input box on the screen after Enter" on a turn that had
// started). A turn drawn just after the wait is a turn: no error, Enter
// once.
func TestTurnDrawnJustAfterTheWaitIsATurn(t *testing.T) {
	var w bytes.Buffer
	p, screen := qwenAfterEnter(t, &w, func(ready, _, busy Screen) []phase {
		// the box empty through the wait and its last look; then the turn
		return []phase{{s: ready, until: 50 * time.Millisecond, looks: 1}, {s: busy}}
	})
	if err := p.Submit(context.Background(), &w, screen, "CHECKPOINT REQUEST: T001"); err != nil {
		t.Fatalf("Submit = %v; the turn showed just after the wait", err)
	}
	if n := strings.Count(w.String(), "\r"); n != 1 {
		t.Errorf("Enter pressed %d times, want once", n)
	}
}

// After Enter Qwen Code takes its box off the screen a moment before it
// draws its turn (every Enter of its recordings); on a loaded machine the
// moment lasted seconds (CI: the box empty after Enter, then neither box
// nor turn, and Submit gave up "the box does not show empty" on a turn
// about to show). Submit waits through it, whether the screen after the
// wait shows it at once or after the box again; Enter once, the text typed
// once.
func TestQwenBetweenItsBoxAndItsTurnIsWaitedThrough(t *testing.T) {
	for _, c := range []struct {
		name   string
		phases func(ready, between, busy Screen) []phase
		ok     bool
	}{
		{"no box just after the wait", func(ready, between, busy Screen) []phase {
			return []phase{{s: ready, until: 50 * time.Millisecond, looks: 1}, {s: between, until: 150 * time.Millisecond}, {s: busy}}
		}, true},
		{"the empty box after the wait, then no box", func(ready, between, busy Screen) []phase {
			return []phase{{s: ready, until: 50 * time.Millisecond, looks: 2}, {s: between, until: 150 * time.Millisecond}, {s: busy}}
		}, true},
		{"no box for good", func(ready, between, busy Screen) []phase {
			return []phase{{s: ready, until: 50 * time.Millisecond, looks: 2}, {s: between}}
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var w bytes.Buffer
			p, screen := qwenAfterEnter(t, &w, c.phases)
			text := "CHECKPOINT REQUEST: T001"
			err := p.Submit(context.Background(), &w, screen, text)
			if (err == nil) != c.ok {
				t.Errorf("Submit = %v, want ok %v", err, c.ok)
			}
			if n, m := strings.Count(w.String(), "\r"), strings.Count(w.String(), text); n != 1 || m != 1 {
				t.Errorf("Enter pressed %d times, the text typed %d times; want once each", n, m)
			}
		})
	}
}
