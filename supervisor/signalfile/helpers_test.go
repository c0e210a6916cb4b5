//go:build !e2e

package signalfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
)

// waitLimit only guards against a hang; no test asserts on time.
const waitLimit = 10 * time.Second

func testLogger(t *testing.T) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: t.Name(), Level: hclog.Debug, Output: testWriter{t}})
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// harness is a Watcher on a fake clock, so that the poll only runs when a
// test advances the clock, plus what the run goroutine reports handling.
type harness struct {
	t      *testing.T
	w      *Watcher
	clk    *clock.Fake
	events chan fsnotify.Event
	polls  chan struct{}
	guards chan struct{}
	marks  atomic.Int64
}

// start builds a harness for path; newFS, when set, replaces
// fsnotify.NewWatcher (failingFS: poll only).
func start(t *testing.T, path string, newFS func() (*fsnotify.Watcher, error)) *harness {
	t.Helper()
	return startAdding(t, path, newFS, nil)
}

// startAdding is start with add checked before every fsnotify Add: an error
// from it fails that Add.
func startAdding(t *testing.T, path string, newFS func() (*fsnotify.Watcher, error), add func(string) error) *harness {
	t.Helper()
	noGoroutineLeft(t)
	h := &harness{t: t, clk: clock.NewFake(time.Unix(0, 0)),
		events: make(chan fsnotify.Event, 4096), polls: make(chan struct{}, 64), guards: make(chan struct{}, 64)}
	if newFS == nil {
		newFS = fsnotify.NewWatcher
	}
	opt := options{clock: h.clk, newFS: newFS, add: add, hooks: hooks{
		event: func(ev fsnotify.Event) { h.events <- ev },
		poll:  func() { h.polls <- struct{}{} },
		guard: func() { h.guards <- struct{}{} },
	}}
	w, err := newWatcher(testLogger(t), path, time.Second, opt)
	if err != nil {
		t.Fatalf("new watcher: %v", err)
	}
	h.w = w
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return h
}

// fired waits for one value on C.
func (h *harness) fired(why string) {
	h.t.Helper()
	select {
	case <-h.w.C():
	case <-time.After(waitLimit):
		h.t.Fatalf("%s: no signal on C", why)
	}
}

// quiet asserts nothing is pending on C. Call it after settle or tick, which
// guarantee the run goroutine has handled everything before.
func (h *harness) quiet(why string) {
	h.t.Helper()
	select {
	case <-h.w.C():
		h.t.Fatalf("%s: unexpected signal on C", why)
	default:
	}
}

// settle creates a marker file in dir and waits until the run goroutine has
// handled its event: inotify keeps order, so every earlier event has been
// handled too. The watch may still be moving to dir (a marker created just
// before the Add makes no event), so a new marker is created every 100 ms
// until one is seen.
func (h *harness) settle(dir string) {
	h.t.Helper()
	deadline := time.After(waitLimit)
	for {
		marker := filepath.Join(dir, fmt.Sprintf(".marker-%d", h.marks.Add(1)))
		write(h.t, marker)
		retry := time.After(100 * time.Millisecond)
		for waiting := true; waiting; {
			select {
			case ev := <-h.events:
				if ev.Name == marker {
					return
				}
			case <-retry:
				waiting = false
			case <-deadline:
				h.t.Fatalf("no fsnotify event handled in %s", dir)
			}
		}
	}
}

// waitEvent waits until the run goroutine has handled an event on name.
func (h *harness) waitEvent(name string) {
	h.t.Helper()
	deadline := time.After(waitLimit)
	for {
		select {
		case ev := <-h.events:
			if ev.Name == name {
				return
			}
		case <-deadline:
			h.t.Fatalf("no fsnotify event handled for %s", name)
		}
	}
}

// tick advances the fake clock by one poll interval once the run goroutine
// waits on it, and waits until that poll has been handled.
func (h *harness) tick() {
	h.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for h.clk.Waiters() == 0 {
		if time.Now().After(deadline) {
			h.t.Fatal("run goroutine never waited on the poll timer")
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	h.clk.Advance(time.Second)
	select {
	case <-h.polls:
	case <-time.After(waitLimit):
		h.t.Fatal("poll tick not handled")
	}
}

// guarded waits until the run goroutine has acted on a guard event.
func (h *harness) guarded(why string) {
	h.t.Helper()
	select {
	case <-h.guards:
	case <-time.After(waitLimit):
		h.t.Fatalf("%s: no guard event handled", why)
	}
}

// notPolling asserts that no poll timer is armed. Call it after settle,
// which guarantees the run goroutine is waiting again.
func (h *harness) notPolling(why string) {
	h.t.Helper()
	if n := h.clk.Waiters(); n != 0 {
		h.t.Fatalf("%s: %d poll timer(s) armed while the watch holds", why, n)
	}
}

func write(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("now\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func touch(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
}

// noGoroutineLeft registers a cleanup, run after the Watcher's Close (which
// is registered later), that waits for the goroutine count to come back.
func noGoroutineLeft(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(waitLimit)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<16)
				t.Errorf("goroutines: %d before, %d after Close\n%s",
					before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

var errNoInotify = errors.New("inotify instances exhausted")

func failingFS() (*fsnotify.Watcher, error) { return nil, errNoInotify }
