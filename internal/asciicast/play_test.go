//go:build !e2e

package asciicast

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// fakePlayer is a clock for Play: sleeping moves it.
type fakePlayer struct {
	fakeNow
	slept []time.Duration
}

func (p *fakePlayer) sleep(ctx context.Context, d time.Duration) (time.Duration, error) {
	p.slept = append(p.slept, d)
	p.add(d)
	return 0, ctx.Err()
}

func cast(events ...string) *Reader {
	r, err := NewReader(strings.NewReader(`{"version": 2, "width": 80, "height": 24, "idle_time_limit": 2}` + "\n" +
		strings.Join(events, "\n") + "\n"))
	if err != nil {
		panic(err)
	}
	return r
}

func TestPlayKeepsThePaceCapsIdleAndDividesBySpeed(t *testing.T) {
	p := &fakePlayer{fakeNow: *newFakeNow()}
	var out bytes.Buffer
	r := cast(`[0.5, "o", "a"]`, `[0.5, "o", "b"]`, `[1.0, "r", "100x30"]`, `[1.5, "o", "c"]`,
		`[61.5, "o", "d"]`, `[61.75, "m", "marker"]`)
	if err := Play(context.Background(), r, &out, PlayOptions{Speed: 2, Now: p.now, Sleep: p.sleep}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "abcd" {
		t.Errorf("output %q", out.String())
	}
	// 0.5 s, then 0.5 + 0.5 s, then a minute capped at 2 s, then 0.25 s: all halved.
	want := []time.Duration{250 * time.Millisecond, 250 * time.Millisecond, 250 * time.Millisecond, time.Second, 125 * time.Millisecond}
	if len(p.slept) != len(want) {
		t.Fatalf("slept %v, want %v", p.slept, want)
	}
	for i := range want {
		if p.slept[i] != want[i] {
			t.Fatalf("slept %v, want %v", p.slept, want)
		}
	}
}

func TestPlayCatchesUpWithSlowWrites(t *testing.T) {
	p := &fakePlayer{fakeNow: *newFakeNow()}
	slow := writerFunc(func(b []byte) (int, error) { p.add(300 * time.Millisecond); return len(b), nil })
	r := cast(`[0.5, "o", "a"]`, `[1.0, "o", "b"]`, `[2.0, "o", "c"]`)
	if err := Play(context.Background(), r, slow, PlayOptions{Now: p.now, Sleep: p.sleep}); err != nil {
		t.Fatal(err)
	}
	// a at 0.5 (written by 0.8), b due at 1.0: 0.2 left; c due at 2.0 (b done at 1.3): 0.7.
	want := []time.Duration{500 * time.Millisecond, 200 * time.Millisecond, 700 * time.Millisecond}
	for i := range want {
		if i >= len(p.slept) || p.slept[i] != want[i] {
			t.Fatalf("slept %v, want %v", p.slept, want)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func TestPlayStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	r := cast(`[0.0, "o", "a"]`, `[0.01, "o", "b"]`, `[1.5, "o", "c"]`)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	start := time.Now()
	if err := Play(ctx, r, &out, PlayOptions{}); err != context.Canceled {
		t.Fatalf("Play = %v, want canceled", err)
	}
	if el := time.Since(start); el > time.Second || out.String() != "ab" {
		t.Errorf("stopped after %v with %q, want at 50 ms with \"ab\"", el, out.String())
	}
}

func TestPauseHoldsTheReplay(t *testing.T) {
	pause := make(chan struct{})
	var out bytes.Buffer
	r := cast(`[0.05, "o", "a"]`, `[0.1, "o", "b"]`)
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- Play(context.Background(), r, &out, PlayOptions{Pause: pause}) }()
	pause <- struct{}{}
	time.Sleep(300 * time.Millisecond)
	pause <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 350*time.Millisecond || out.String() != "ab" {
		t.Errorf("took %v with %q: want the 100 ms replay held by the 300 ms pause", el, out.String())
	}
}

// Resize events reach PlayOptions.Resize in their place among the output;
// a bad one is skipped.
func TestPlayHandsOnResizes(t *testing.T) {
	p := &fakePlayer{fakeNow: *newFakeNow()}
	var got []string
	out := writerFunc(func(b []byte) (int, error) { got = append(got, string(b)); return len(b), nil })
	r := cast(`[0.1, "o", "a"]`, `[0.2, "r", "100x30"]`, `[0.3, "o", "b"]`, `[0.4, "r", "wide"]`, `[0.5, "r", "80x24"]`)
	err := Play(context.Background(), r, out, PlayOptions{Now: p.now, Sleep: p.sleep,
		Resize: func(cols, rows int) { got = append(got, fmt.Sprintf("%dx%d", cols, rows)) }})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "a 100x30 b 80x24" {
		t.Errorf("played %q", got)
	}
}
