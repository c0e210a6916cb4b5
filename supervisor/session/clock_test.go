//go:build e2e

package session

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/testrig/proctest"
)

// recordsTo is a reporter that hands every record to a channel.
type recordsTo struct {
	quietReporter
	ch chan *protocol.Checkpoint
}

func (r recordsTo) Record(cp *protocol.Checkpoint) Verdict {
	r.ch <- cp
	return Verdict{Saved: true}
}

// keysLog is what the fake agent tui-keys logged: its reads and lines.
type keysLog struct {
	t    *testing.T
	path string
}

func (k keysLog) lines() []string {
	b, _ := os.ReadFile(k.path)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// reads are the chunks the agent read, in order.
func (k keysLog) reads() []string {
	var out []string
	for _, l := range k.lines() {
		if q, ok := strings.CutPrefix(l, "READ "); ok {
			s, err := strconv.Unquote(q)
			if err != nil {
				k.t.Fatalf("log line %q: %v", l, err)
			}
			out = append(out, s)
		}
	}
	return out
}

// enters is how many reads held an Enter.
func (k keysLog) enters() int {
	n := 0
	for _, r := range k.reads() {
		n += strings.Count(r, "\r")
	}
	return n
}

func (k keysLog) has(line string) bool {
	for _, l := range k.lines() {
		if l == line {
			return true
		}
	}
	return false
}

// never checks for d of real time that cond stays false: what the fake
// clock holds back does not happen however long one waits.
func never(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			t.Fatalf("%s while the fake clock stood still", what)
		}
	}
}

// watchedClock is a fake clock that counts the timers set on it by
// duration, so that a test moves it only once the code under test waits
// on it (a timer is counted once it is set).
type watchedClock struct {
	*clock.Fake
	mu  sync.Mutex
	set map[time.Duration]int
}

func (w *watchedClock) note(d time.Duration) {
	w.mu.Lock()
	w.set[d]++
	w.mu.Unlock()
}

// timers is how many timers of d have been set.
func (w *watchedClock) timers(d time.Duration) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.set[d]
}

func (w *watchedClock) After(d time.Duration) <-chan time.Time {
	ch := w.Fake.After(d)
	w.note(d)
	return ch
}

func (w *watchedClock) NewTimer(d time.Duration) clock.Timer {
	t := w.Fake.NewTimer(d)
	w.note(d)
	return t
}

func (w *watchedClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	t := w.Fake.AfterFunc(d, f)
	w.note(d)
	return t
}

// syncBuffer is a log the session writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// The screen's settle, warden's typing (a bracketed paste, the 700 ms pause,
// Enter as a write of its own, the check that a turn started and the Enter
// pressed again after SubmitWindow) and the echo window, driven together on
// a fake clock through a real fake TUI under a pty: each step happens when
// the fake clock reaches it, never sooner, and no step waits on the wall
// clock. The test moves the clock only once the session waits on it.
func TestSettleTypingAndEchoOnAFakeClock(t *testing.T) {
	defer proctest.AssertNone(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	fc := &watchedClock{Fake: clock.NewFake(t0), set: map[time.Duration]int{}}
	k := keysLog{t: t, path: filepath.Join(t.TempDir(), "keys.log")}
	cfg := fakeSession("w", "tui-keys:"+k.path+":1", "claude", runner.Size{Rows: 24, Cols: 80})
	cfg.Clock, cfg.Team = fc, newTestTeam()
	cfg.Task = &config.Task{ID: "T1", Title: "type on a fake clock"}
	cfg.Prompt = "Your task: T1 - type on a fake clock."
	cfg.Timers = Timers{CheckpointInterval: time.Hour, CheckpointTimeout: time.Hour, StaleWarning: 10 * time.Hour,
		StaleFailure: 20 * time.Hour, ShutdownTimeout: 2 * time.Second}
	records := make(chan *protocol.Checkpoint, 4)
	cfg.Report = recordsTo{ch: records}
	logs := &syncBuffer{}
	began := time.Now()
	s, out := startSessionLogged(t, cfg, hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info}))
	defer func() { // stop it: the quit keys' pauses are on the fake clock too
		close(cfg.Team.(*testTeam).stop)
		for {
			select {
			case <-out:
				return
			case <-time.After(5 * time.Millisecond):
				fc.Advance(100 * time.Millisecond)
			}
		}
	}()
	p := s.prof
	const readyPoll = 50 * time.Millisecond // the typist's look for the input box

	// The CLI shows "loading": not ready, so the typist waits on the fake
	// clock; then the CLI draws its input box.
	waitFor(t, "the typist waiting for the input box", func() bool { return fc.timers(readyPoll) > 0 })
	waitFor(t, "the loading screen", func() bool { return onScreen(s, "loading") })
	if err := os.WriteFile(k.path+".show", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the input box", func() bool { return onScreen(s, "? for shortcuts") })
	shown := fc.Now()
	if got := time.Unix(0, s.out.last.Load()); !got.Equal(shown) {
		t.Fatalf("the agent's own output at %v, want %v on the fake clock", got, shown)
	}
	never(t, 300*time.Millisecond, "typed", func() bool { return len(k.reads()) > 0 })

	// The typist looks again 50 ms later (fake) and types: one bracketed
	// paste, no Enter.
	fc.Advance(readyPoll)
	waitFor(t, "the paste", func() bool { return len(k.reads()) > 0 })
	typedAt := time.Unix(0, s.out.echoUntil.Load()).Add(-echoGrace)
	if !typedAt.Equal(shown.Add(readyPoll)) {
		t.Fatalf("typed at %v, want %v", typedAt, shown.Add(readyPoll))
	}
	paste := strings.Join(k.reads(), "")
	if !strings.HasPrefix(paste, "\x1b[200~"+cfg.Prompt) || strings.Contains(paste, "\r") {
		t.Fatalf("first write %q, want the bracketed paste alone", paste)
	}
	// Its echo (the box redrawn with the text) is not the agent's own output.
	waitFor(t, "the echo", func() bool { return onScreen(s, "Your task: T1") })
	if got := time.Unix(0, s.out.last.Load()); !got.Equal(shown) {
		t.Errorf("the echo counted as the agent's output (last output %v, want %v)", got, shown)
	}

	// Enter comes EnterDelay (700 ms) after the paste on the fake clock, as
	// a write of its own — not a moment sooner.
	waitFor(t, "the pause before Enter", func() bool { return fc.timers(p.EnterDelay) == 1 })
	polls := fc.timers(p.Poll)
	fc.Advance(p.EnterDelay - time.Millisecond)
	never(t, p.EnterDelay+100*time.Millisecond, "Enter pressed before the 700 ms pause ended", func() bool { return k.enters() > 0 })
	fc.Advance(time.Millisecond)
	waitFor(t, "Enter", func() bool { return k.enters() == 1 })
	enterAt := fc.Now()
	if !enterAt.Equal(typedAt.Add(p.EnterDelay)) {
		t.Errorf("Enter at %v, want %v", enterAt, typedAt.Add(p.EnterDelay))
	}
	if r := k.reads(); r[len(r)-1] != "\r" {
		t.Errorf("Enter came as %q, want a write of its own", r[len(r)-1])
	}
	waitFor(t, "the CLI dropping the Enter", func() bool { return k.has("IGNORED ENTER") })

	// No turn starts: Submit looks every Poll (25 ms) and presses Enter
	// again only when SubmitWindow (2 s) has passed on the fake clock.
	pressAgain := func() bool { return strings.Contains(logs.String(), "no turn yet after Enter") }
	for !pressAgain() {
		waitFor(t, "Submit looking at the screen", func() bool { return fc.timers(p.Poll) > polls || pressAgain() })
		if pressAgain() {
			break
		}
		if fc.Now().Sub(enterAt) >= p.SubmitWindow {
			t.Fatalf("no second Enter %s after the first", fc.Now().Sub(enterAt))
		}
		polls = fc.timers(p.Poll)
		fc.Advance(p.Poll)
	}
	againAt := fc.Now()
	waitFor(t, "the second Enter", func() bool { return k.enters() == 2 })
	if waited := againAt.Sub(enterAt); waited != p.SubmitWindow {
		t.Errorf("Enter pressed again %s after the first, want SubmitWindow %s", waited, p.SubmitWindow)
	}
	waitFor(t, "the line taken", func() bool { return k.has("LINE " + cfg.Prompt) })

	// The CLI answers (spinner, the block drawn and repainted): outside the
	// echo window, so it is the agent's own output, at the fake time.
	waitFor(t, "the answer drawn", func() bool { return k.has("ANSWERED") })
	drawn := fc.Now()
	waitFor(t, "the answer counted as the agent's output at the fake time", func() bool {
		return time.Unix(0, s.out.last.Load()).Equal(drawn)
	})

	// Its ten repaints come at the same fake time; under load the last of
	// them may still be on its way through the pty when ANSWERED is
	// logged, and would re-arm the settle timer after the advance below:
	// wait for the output read to hold still (real time) first.
	for seq, still := s.tap.seq.Load(), time.Now(); time.Since(still) < 500*time.Millisecond; time.Sleep(20 * time.Millisecond) {
		if now := s.tap.seq.Load(); now != seq {
			seq, still = now, time.Now()
		}
	}

	// The block is read off the screen only once it settled: the settle
	// runs on the fake clock.
	settle := p.Settle
	never(t, 300*time.Millisecond, "recorded before the screen settled", func() bool { return len(records) > 0 })
	fc.Advance(settle - time.Millisecond)
	never(t, 300*time.Millisecond, "recorded before the settle time", func() bool { return len(records) > 0 })
	fc.Advance(time.Millisecond)
	select {
	case cp := <-records:
		if cp.TaskID != "T1" || cp.ProgressPercent != 10 || !cp.UpdatedAt.Equal(drawn.Add(settle)) {
			t.Errorf("record %s %d%% at %v, want T1 10%% at %v", cp.TaskID, cp.ProgressPercent, cp.UpdatedAt, drawn.Add(settle))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no record once the screen settled")
	}
	fake := fc.Now().Sub(t0)
	t.Logf("%s on the fake clock in %s of real time", fake, time.Since(began).Round(time.Millisecond))
	if fake < 2*time.Second {
		t.Errorf("only %s on the fake clock: the steps were not driven by it", fake)
	}
}
