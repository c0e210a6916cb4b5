package runner

import (
	"sync"

	"github.com/hashicorp/go-hclog"
)

// RotatingLog is a log file rotated like an agent's terminal log (the same
// code: rotated by rename before a write would take it past its size,
// keeping that many old files; a symbolic link refused; a failing disk
// never fails a write but drops what it could not keep). Unlike an agent's
// log it is safe for concurrent use: warden's own log (logs/warden.log) is
// written from every goroutine.
type RotatingLog struct {
	mu     sync.Mutex
	l      *logFile
	closed bool
}

// OpenRotatingLog opens path for appending (created 0600, its directory
// 0700), rotated at maxSize bytes keeping keep old files (0: the defaults
// of an agent's log). onError, if set, is told once when writing starts to
// fail and once when it works again; it must not write to this log.
func OpenRotatingLog(path string, maxSize int64, keep int, onError func(error)) (*RotatingLog, error) {
	// The log cannot report its own failures into itself: they go to onError.
	l, err := openLogFile(hclog.NewNullLogger(), Config{LogPath: path, LogMaxSize: maxSize, LogKeep: keep, OnLogError: onError})
	if err != nil {
		return nil, err
	}
	return &RotatingLog{l: l}, nil
}

// Write appends p; it never fails (see logFile.write).
func (r *RotatingLog) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.l.write(p)
	}
	return len(p), nil
}

// Close closes the live file; later writes are dropped.
func (r *RotatingLog) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	return r.l.close()
}
