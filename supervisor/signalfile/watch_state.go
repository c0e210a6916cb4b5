package signalfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// maxRewatch bounds one rewatch: directories that keep appearing and
// vanishing faster than we can Add them are left to the poll.
const maxRewatch = 64

// handle applies one fsnotify event. Events on the exact name: Remove and
// Rename mean the file left (even if a new one is already there: its Create
// follows and fires), Create, Write and Chmod mean "stat it now". Events on
// the watched directory or on the directories still missing move the watch.
func (w *Watcher) handle(ev fsnotify.Event) {
	switch {
	case ev.Name == w.path:
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			if w.present {
				w.log.Debug("signal file gone", "path", w.path, "op", ev.Op.String())
			}
			w.present = false
		}
		if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write) || ev.Has(fsnotify.Chmod) {
			w.check()
		}
	case ev.Name == w.watched && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)):
		// fsnotify has already dropped this watch. Whatever file was seen
		// went with the directory: one found now is a new presence.
		w.log.Debug("watched directory gone", "dir", w.watched, "op", ev.Op.String())
		w.watched, w.watchedInfo = "", nil
		w.present = false
		w.rewatch()
		w.check()
	case w.watched != w.dir && isAncestorOrSelf(ev.Name, w.dir):
		// A missing directory on the way to the file appeared or changed.
		w.rewatch()
	}
}

// handleError reacts to an fsnotify error: on an overflow events were lost,
// so the watch is verified and the file is stat'ed.
func (w *Watcher) handleError(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.log.Warn("fsnotify queue overflow, checking signal file", "path", w.path)
		w.rewatch()
		w.check()
		return
	}
	w.log.Warn("fsnotify error", "path", w.path, "error", err)
}

// check stats the file and delivers on C on an absent→present transition.
func (w *Watcher) check() {
	_, err := os.Stat(w.path)
	if err != nil {
		if !isMissing(err) && err.Error() != w.statErr {
			w.log.Warn("stat signal file failed", "path", w.path, "error", err)
		}
		w.statErr = err.Error()
		w.present = false
		return
	}
	w.statErr = ""
	if w.present {
		return
	}
	w.present = true
	w.log.Debug("signal file appeared", "path", w.path)
	select {
	case w.c <- struct{}{}:
	default: // a value is already pending
	}
}

// rewatch puts the fsnotify watch on the file's parent directory, or on its
// nearest existing ancestor, and stats the file after every Add so that a
// file created before the watch took hold is not missed; then it guards that
// directory and its ancestors. It loops until the directory it would pick is
// the one watched and guarded, which closes the race of a directory created
// or moved meanwhile. It leaves the watcher armed, or polling if it could
// not set the watch up.
func (w *Watcher) rewatch() {
	w.armed = false
	for range maxRewatch {
		dir, info, err := nearestDir(w.dir)
		if err != nil {
			w.log.Warn("find directory to watch failed, polling", "path", w.path, "error", err)
			return
		}
		if dir == w.watched && os.SameFile(info, w.watchedInfo) && slices.Contains(w.fs.WatchList(), dir) {
			switch err := w.guardDirs(); {
			case err == nil:
				w.armed = true
				return
			case errors.Is(err, errNoGuard):
				return
			case errors.Is(err, errMoved) || isMissing(err):
				continue // a directory on the way changed: look again
			default:
				w.log.Warn("guard watched directories failed, polling", "dir", dir, "error", err)
				return
			}
		}
		if w.watched != "" {
			// The old watch may already be gone (deleted directory): ignore.
			_ = w.fs.Remove(w.watched)
			w.watched, w.watchedInfo = "", nil
		}
		if err := w.add(dir); err != nil {
			if isMissing(err) {
				continue // vanished between stat and Add: look again
			}
			w.log.Warn("watch directory failed, polling", "dir", dir, "error", err)
			return
		}
		w.watched, w.watchedInfo = dir, info
		w.log.Debug("watching directory", "dir", dir, "parent", dir == w.dir)
		w.check()
	}
	w.log.Warn("directories keep changing, polling", "path", w.path)
}

// add puts the fsnotify watch on dir (tests may make it fail).
func (w *Watcher) add(dir string) error {
	if w.addHook != nil {
		if err := w.addHook(dir); err != nil {
			return err
		}
	}
	return w.fs.Add(dir)
}

var (
	errNoGuard = errors.New("no guard")
	// errMoved means a directory changed while its guard was being set.
	errMoved = errors.New("directory changed while being guarded")
)

// guardDirs guards the watched directory and every ancestor of it.
func (w *Watcher) guardDirs() error {
	if w.guard == nil {
		return errNoGuard
	}
	var dirs []string
	for d := w.watched; ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	return w.guard.set(dirs)
}

// handleGuard reacts to the guard: the watched directory or an ancestor
// was moved, deleted or unmounted, or guard events were lost. The watch is
// put where the path leads now, and the file is stat'ed.
func (w *Watcher) handleGuard(ev guardEvent) {
	if !w.guard.moved(ev) {
		return
	}
	w.log.Debug("watched directory or an ancestor changed, re-arming the watch", "path", w.path)
	w.rewatch()
	w.check()
	if w.hooks.guard != nil {
		w.hooks.guard()
	}
}

// nearestDir returns dir if it is an existing directory, else its nearest
// ancestor that is.
func nearestDir(dir string) (string, os.FileInfo, error) {
	for {
		info, err := os.Stat(dir)
		if err == nil && info.IsDir() {
			return dir, info, nil
		}
		if err != nil && !isMissing(err) {
			return "", nil, err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil, errors.New("no existing ancestor directory")
		}
		dir = parent
	}
}

// isAncestorOrSelf reports whether p is dir or one of its ancestors.
func isAncestorOrSelf(p, dir string) bool {
	if p == dir {
		return true
	}
	prefix := p
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(dir, prefix)
}

// isMissing is true for "no such file" and for "a path component is not a
// directory": both mean the file is not there.
func isMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
