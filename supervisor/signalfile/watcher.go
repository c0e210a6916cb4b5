// Package signalfile tells the supervisor when a signal file (by default
// <state_dir>/checkpoint-needed) appears, however it was written: a plain
// write, an atomic rename over the name, a touch, or a file created inside a
// directory that did not exist yet.
//
// Events feed one state machine: fsnotify on the file's parent directory (or
// on its nearest existing ancestor while the parent is missing), and a guard
// on that directory and its ancestors that re-arms the watch when one of
// them is moved, deleted or unmounted (guard_linux.go). While the watch
// holds nothing polls, so an idle watcher never wakes. A stat poll runs only
// while the watch cannot be set up: an fsnotify or guard that cannot start,
// or an Add that fails (file systems without inotify, the watch limit); each
// poll also tries to set the watch up again.
package signalfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
)

// Watcher reports the appearance of one file.
type Watcher struct {
	log     hclog.Logger
	path    string // absolute, cleaned
	dir     string // filepath.Dir(path)
	poll    time.Duration
	clock   clock.Clock
	hooks   hooks
	addHook func(dir string) error

	c    chan struct{}
	done chan struct{}
	wg   sync.WaitGroup

	fs     *fsnotify.Watcher // nil in poll-only mode
	events <-chan fsnotify.Event
	errs   <-chan error
	guard  *guard // nil without fsnotify, or when it cannot start
	guardC <-chan guardEvent

	closeOnce sync.Once
	closeErr  error

	// Owned by the run goroutine (and by the constructor before it starts).
	present     bool
	watched     string      // directory the fsnotify watch is on; "" when none
	watchedInfo os.FileInfo // its stat at Add time, to notice a replaced directory
	statErr     string      // last unexpected stat error, logged once
	armed       bool        // the watch and its guard are set: no poll needed
}

// options are the seams tests use; New fills them in.
type options struct {
	clock clock.Clock
	newFS func() (*fsnotify.Watcher, error)
	hooks hooks
	add   func(dir string) error // checked before each fsnotify Add; an error fails it
}

// hooks let tests learn that the run goroutine has handled something, so
// they can assert "nothing more was delivered" without sleeping.
type hooks struct {
	event func(fsnotify.Event) // after an fsnotify event was handled
	poll  func()               // after a poll tick was handled
	guard func()               // after a guard event was handled
}

// New starts watching path with fsnotify on its parent directory (or the
// nearest existing ancestor while the parent does not exist), guarded, and a
// stat right after every Add. It polls (a stat every poll) only while the
// watch cannot be set up; if fsnotify cannot start, it polls only and says so
// in the log. It fails only on an empty path or one it cannot make absolute.
func New(logger hclog.Logger, path string, poll time.Duration) (*Watcher, error) {
	return newWatcher(logger, path, poll, options{clock: clock.Real{}, newFS: fsnotify.NewWatcher})
}

func newWatcher(logger hclog.Logger, path string, poll time.Duration, opt options) (*Watcher, error) {
	if path == "" {
		return nil, errors.New("watch signal file: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("watch signal file %s: %w", path, err)
	}
	w := &Watcher{
		log:     logger.Named("signalfile"),
		path:    abs,
		dir:     filepath.Dir(abs),
		poll:    poll,
		clock:   opt.clock,
		hooks:   opt.hooks,
		addHook: opt.add,
		c:       make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	if fsw, err := opt.newFS(); err != nil {
		w.log.Warn("fsnotify unavailable, polling only", "path", w.path, "poll", poll, "error", err)
	} else {
		w.fs, w.events, w.errs = fsw, fsw.Events, fsw.Errors
		if g, err := newGuard(); err != nil {
			w.log.Warn("cannot guard the watched directories, polling as a safety net", "path", w.path, "poll", poll, "error", err)
		} else {
			w.guard, w.guardC = g, g.events()
		}
		w.rewatch()
	}
	w.check()
	w.log.Debug("watching signal file", "path", w.path, "fsnotify", w.fs != nil, "polling", w.polling(), "poll", poll)
	w.wg.Add(1)
	go w.run()
	return w, nil
}

// C delivers one value each time the file is seen present after having been
// absent, or at start if it already exists. One presence is delivered once;
// a value not yet received is not doubled. C is never closed.
func (w *Watcher) C() <-chan struct{} { return w.c }

// Close stops the goroutine and closes the fsnotify watcher. It is
// idempotent and returns the first close error on every call.
func (w *Watcher) Close() error {
	w.closeOnce.Do(func() {
		close(w.done)
		w.wg.Wait()
		if w.guard != nil {
			w.guard.close()
		}
		if w.fs != nil {
			if err := w.fs.Close(); err != nil {
				w.closeErr = fmt.Errorf("close fsnotify watcher for %s: %w", w.path, err)
			}
		}
	})
	return w.closeErr
}

// polling reports whether the watch cannot be relied on: no fsnotify, its
// events ended, or the watch or its guard not set.
func (w *Watcher) polling() bool { return w.fs == nil || w.events == nil || !w.armed }

// run is the only goroutine: it handles fsnotify and guard events as they
// come and, while polling, a poll tick every w.poll. The tick is re-armed
// only after it fires, so a steady stream of unrelated events in the
// directory does not starve it; once the watch is set up again it is not.
func (w *Watcher) run() {
	defer w.wg.Done()
	var tick <-chan time.Time
	for {
		if tick == nil && w.polling() {
			tick = w.clock.After(w.poll)
		}
		select {
		case <-w.done:
			return
		case ev, ok := <-w.events:
			if !ok {
				w.log.Warn("fsnotify events closed, polling only", "path", w.path)
				w.events, w.errs = nil, nil
				continue
			}
			w.handle(ev)
			if w.hooks.event != nil {
				w.hooks.event(ev)
			}
		case err, ok := <-w.errs:
			if !ok {
				w.errs = nil
				continue
			}
			w.handleError(err)
		case ev := <-w.guardC:
			w.handleGuard(ev)
		case <-tick:
			tick = nil
			if w.fs != nil && w.events != nil {
				w.rewatch()
			}
			w.check()
			if w.hooks.poll != nil {
				w.hooks.poll()
			}
		}
	}
}
