//go:build !e2e

package signalfile

import (
	"path/filepath"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Without fsnotify (it cannot start: no inotify, no instance left) the
// watcher polls, and the poll alone sees every presence.
func TestPollOnlyCatchesFile(t *testing.T) {
	root := t.TempDir()
	flag := filepath.Join(root, "state", "checkpoint-needed")
	h := start(t, flag, failingFS)
	if h.w.fs != nil {
		t.Fatal("fsnotify in use though it failed to start")
	}
	h.tick()
	h.quiet("nothing there")

	mkdir(t, filepath.Dir(flag))
	write(t, flag)
	h.tick()
	h.fired("poll saw the file")
	h.tick()
	h.quiet("same presence on the next poll")

	remove(t, flag)
	h.tick()
	write(t, flag)
	h.tick()
	h.fired("poll saw the re-created file")
}

func TestPollRestoresLostWatch(t *testing.T) {
	dir := t.TempDir()
	flag := filepath.Join(dir, "checkpoint-needed")
	// The watch cannot be set up (as at the inotify watch limit): the
	// watcher polls...
	var failing atomic.Bool
	failing.Store(true)
	h := startAdding(t, flag, nil, func(string) error {
		if failing.Load() {
			return syscall.ENOSPC
		}
		return nil
	})
	write(t, flag)
	h.tick()
	h.fired("poll while the watch cannot be set up")
	// ...and every poll tries again; once the watch is set up, polling stops
	// and fsnotify takes over.
	failing.Store(false)
	remove(t, flag)
	h.tick()
	h.settle(dir)
	h.notPolling("watch set up again")
	write(t, flag)
	h.fired("fsnotify again after the poll re-added the watch")
}

func TestNoPollWhileWatching(t *testing.T) {
	dir := t.TempDir()
	flag := filepath.Join(dir, "state", "checkpoint-needed")
	h := start(t, flag, nil)
	h.settle(dir) // watching the nearest ancestor
	h.notPolling("parent missing")
	mkdir(t, filepath.Dir(flag))
	h.settle(filepath.Dir(flag))
	h.notPolling("parent there")
	write(t, flag)
	h.fired("file written")
	h.settle(filepath.Dir(flag))
	h.notPolling("file there")
}

func TestPublicConstructors(t *testing.T) {
	t.Run("New", func(t *testing.T) {
		noGoroutineLeft(t)
		flag := filepath.Join(t.TempDir(), "a", "checkpoint-needed")
		w, err := New(testLogger(t), flag, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		mkdir(t, filepath.Dir(flag))
		write(t, flag)
		waitC(t, w)
		closeTwice(t, w)
	})
	t.Run("empty path", func(t *testing.T) {
		if _, err := New(testLogger(t), "", time.Second); err == nil {
			t.Fatal("New accepted an empty path")
		}
	})
}

func TestCloseLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 5 {
		flag := filepath.Join(t.TempDir(), "checkpoint-needed")
		w, err := New(testLogger(t), flag, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		write(t, flag)
		waitC(t, w)
		closeTwice(t, w)
	}
	deadline := time.Now().Add(waitLimit)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines: %d before, %d after five New/Close", before, runtime.NumGoroutine())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func waitC(t *testing.T, w *Watcher) {
	t.Helper()
	select {
	case <-w.C():
	case <-time.After(waitLimit):
		t.Fatal("no signal on C")
	}
}

func closeTwice(t *testing.T, w *Watcher) {
	t.Helper()
	if err := w.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
}
