package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/safefile"
)

// Defaults for the zero values of Config.LogMaxSize, LogKeep and LogRetryEvery.
const (
	DefaultLogMaxSize    = 50 << 20 // 50 MiB
	DefaultLogKeep       = 5
	DefaultLogRetryEvery = 5 * time.Second
)

// logFile is an agent's raw terminal log. It is appended to across sessions,
// rotated by rename before it would grow past max (path.1 the newest old
// file … path.keep the oldest), and it survives write errors: the first one
// is reported, output is dropped from the log (never from the relay), and the
// file is reopened at most once every retry until a write works again, which
// is reported too.
//
// Only the reader goroutine uses it (Start before that), so it has no lock.
// A write costs the write syscall, one comparison and one add.
type logFile struct {
	path    string
	max     int64
	keep    int
	retry   time.Duration
	logger  hclog.Logger
	onError func(error)
	now     func() time.Time                           // clock; tests replace it
	open    func(path string) (*os.File, int64, error) // opener; tests replace it

	f       *os.File  // nil while failing
	size    int64     // bytes in the live file
	created bool      // Start created the live file (removed again if Start fails)
	failing bool      // a failure was reported, its recovery not yet
	retryAt time.Time // while f is nil: the earliest reopen
	dropped int64     // bytes not logged since the failure
}

// openLogFile opens cfg.LogPath (nil for ""), creating it 0600 and its
// parents 0700. A symbolic link or a non-regular file there is refused. A
// full or failing disk does not fail the start: it is reported through
// cfg.OnLogError and retried like a write error.
func openLogFile(logger hclog.Logger, cfg Config) (*logFile, error) {
	if cfg.LogPath == "" {
		return nil, nil
	}
	l := newLogFile(logger, cfg)
	if err := l.start(); err != nil {
		return nil, err
	}
	return l, nil
}

// newLogFile applies the defaults; it opens nothing.
func newLogFile(logger hclog.Logger, cfg Config) *logFile {
	l := &logFile{
		path: cfg.LogPath, max: cfg.LogMaxSize, keep: cfg.LogKeep, retry: cfg.LogRetryEvery,
		logger: logger, onError: cfg.OnLogError, now: time.Now, open: openNoFollow,
	}
	if l.max <= 0 {
		l.max = DefaultLogMaxSize
	}
	if l.keep <= 0 {
		l.keep = DefaultLogKeep
	}
	if l.retry <= 0 {
		l.retry = DefaultLogRetryEvery
	}
	return l
}

// start opens the live file for the first time.
func (l *logFile) start() error {
	_, statErr := os.Lstat(l.path)
	err := l.openLive()
	l.created = err == nil && errors.Is(statErr, fs.ErrNotExist)
	if err != nil {
		if !diskError(err) {
			return err
		}
		l.fail(err)
	}
	return nil
}

// openNoFollow opens path for appending without following a symbolic link,
// refuses anything but a regular file, and returns the file's size.
// O_NONBLOCK keeps a planted FIFO from blocking the open; it has no effect on
// a regular file.
func openNoFollow(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, 0, fmt.Errorf("log %s is a symbolic link, refusing to follow it: %w", path, syscall.ELOOP)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("open log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, 0, fmt.Errorf("stat log %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, 0, fmt.Errorf("log %s is not a regular file (%v), refusing it", path, fi.Mode().Type())
	}
	return f, fi.Size(), nil
}

// diskError is true for errors of a full or failing disk, as opposed to a
// refused or misconfigured path.
func diskError(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) ||
		errors.Is(err, syscall.EIO) || errors.Is(err, syscall.EROFS)
}

// openLive creates the log's directory if need be and opens the live file.
func (l *logFile) openLive() error {
	dir := filepath.Dir(l.path) // state_dir/logs: made, never followed if a link
	if err := safefile.MkdirAll(filepath.Dir(dir), dir); err != nil {
		return fmt.Errorf("log dir: %w", err)
	}
	return l.reopen()
}

// reopen opens the live file; the size counts what it already holds.
func (l *logFile) reopen() error {
	f, size, err := l.open(l.path)
	if err != nil {
		return err
	}
	l.f, l.size = f, size
	return nil
}

// write appends b, rotating first if b would take the live file past max.
// It never fails: errors are reported through fail.
func (l *logFile) write(b []byte) {
	if l.f == nil && !l.retryNow() {
		l.dropped += int64(len(b))
		return
	}
	if l.size > 0 && l.size+int64(len(b)) > l.max {
		if err := l.rotate(); err != nil {
			l.dropped += int64(len(b))
			l.fail(err)
			return
		}
	}
	n, err := l.f.Write(b)
	l.size += int64(n)
	if err != nil {
		l.dropped += int64(len(b) - n)
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // "write log PATH: no space left on device"
		}
		l.fail(fmt.Errorf("write log %s: %w", l.path, err))
		return
	}
	if l.failing {
		l.recovered()
	}
}

// rotate renames path.i to path.i+1 (the oldest is replaced) and path to
// path.1, then opens a new live file. rename never follows a symbolic link:
// one planted at a numbered name is replaced.
func (l *logFile) rotate() error {
	err := l.f.Close()
	l.f = nil
	if err != nil {
		return fmt.Errorf("rotate log: %w", err)
	}
	for i := l.keep - 1; i >= 1; i-- {
		if err := os.Rename(l.numbered(i), l.numbered(i+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("rotate log: %w", err)
		}
	}
	if err := os.Rename(l.path, l.numbered(1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("rotate log: %w", err)
	}
	return l.reopen()
}

func (l *logFile) numbered(i int) string { return l.path + "." + strconv.Itoa(i) }

// retryNow reopens the live file if the retry interval has passed.
func (l *logFile) retryNow() bool {
	now := l.now()
	if now.Before(l.retryAt) {
		return false
	}
	l.retryAt = now.Add(l.retry)
	if err := l.openLive(); err != nil {
		l.logger.Debug("log still failing", "path", l.path, "error", err)
		return false
	}
	return true
}

// fail closes the live file, schedules the next attempt and reports err
// unless a failure is already reported.
func (l *logFile) fail(err error) {
	if l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
	l.retryAt = l.now().Add(l.retry)
	if l.failing {
		return
	}
	l.failing = true
	l.logger.Error("agent log failing; output still relayed, not logged", "path", l.path, "error", err, "retry_every", l.retry)
	if l.onError != nil {
		l.onError(err)
	}
}

func (l *logFile) recovered() {
	l.failing = false
	l.logger.Info("agent log writing again", "path", l.path, "bytes_not_logged", l.dropped)
	l.dropped = 0
	if l.onError != nil {
		l.onError(nil)
	}
}

// close closes the live file.
func (l *logFile) close() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if err != nil {
		return fmt.Errorf("close log %s: %w", l.path, err)
	}
	return nil
}

// abort closes the log of a process that failed to start, and removes the
// file if this start created it.
func (l *logFile) abort() {
	_ = l.close()
	if l.created {
		_ = os.Remove(l.path)
	}
}
