package asciicast

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/safefile"
)

// encBufs holds the buffers events are encoded into, shared by every
// Writer: one is in use only while an event is encoded and written, so a
// team needs about one per running reader, not one per agent. A buffer
// grown past maxEncBuf (an event of a huge read) is left to the collector.
var encBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

const maxEncBuf = 256 << 10

// Options describe a new recording.
type Options struct {
	Cols, Rows int    // the terminal's size at the start
	Term       string // the TERM the program sees ("" leaves env out)
	Title      string
	// MaxSize caps the recording's size in bytes (0: no cap). The event that
	// would take it past the cap is replaced by StopNote, shown as output,
	// and nothing more is recorded.
	MaxSize  int64
	StopNote string
	// Now is the clock of the timestamps; nil is time.Now.
	Now func() time.Time
}

// Writer records output and resizes as asciicast v2 events. It is safe for
// concurrent use. A chunk costs a lock, a clock read, its JSON encoding
// into a shared buffer and one write: nothing is held back, so the
// recording is as current as the terminal log (a player following a live
// session, or a warden killed with SIGKILL, loses nothing already relayed)
// and no timer wakes up later to flush it. No allocation per chunk. Write
// never fails the caller: a failed write stops the recording, logged once.
type Writer struct {
	log   hclog.Logger
	dst   io.Writer
	file  io.Closer // nil unless Create opened it
	start time.Time
	now   func() time.Time

	mu      sync.Mutex
	max     int64 // 0: no cap
	reserve int64 // bytes kept for the stop note
	note    string
	written int64
	carry   utf8Carry
	stopped bool // at the cap, failed, or closed: nothing more is recorded
	closed  bool
	err     error // the first write error
}

// Create opens a new recording at path (0600, its directory 0700 if it must
// be made) and writes its header. It refuses a path that exists, a symbolic
// link included, and a directory that is a link (logs/ of a state dir: see
// internal/safefile).
func Create(logger hclog.Logger, path string, o Options) (*Writer, error) {
	dir := filepath.Dir(path)
	if err := safefile.MkdirAll(filepath.Dir(dir), dir); err != nil {
		return nil, fmt.Errorf("recording dir: %w", err)
	}
	f, err := safefile.Open(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return nil, fmt.Errorf("create recording: %w", err)
	}
	w, err := NewWriter(logger, f, o)
	if err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, err
	}
	w.file = f
	return w, nil
}

// NewWriter starts a recording on dst: the header is written at once.
func NewWriter(logger hclog.Logger, dst io.Writer, o Options) (*Writer, error) {
	w := &Writer{log: logger, dst: dst, now: o.Now, max: o.MaxSize, note: o.StopNote}
	if w.now == nil {
		w.now = time.Now
	}
	w.start = w.now()
	h := Header{Version: Version, Width: o.Cols, Height: o.Rows, Timestamp: w.start.Unix(),
		IdleTimeLimit: DefaultIdleLimit.Seconds(), Title: o.Title}
	if o.Term != "" {
		h.Env = map[string]string{"TERM": o.Term}
	}
	if err := h.check(); err != nil {
		return nil, err
	}
	line, err := h.line()
	if err != nil {
		return nil, err
	}
	if w.max > 0 {
		// The note's event with a timestamp of a year in seconds.
		w.reserve = int64(len(appendEvent(nil, 3e7, Output[0], []byte(w.note))))
	}
	w.put(line)
	return w, w.err
}

// Write records p as an output event. It always returns len(p), nil.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return len(p), nil
	}
	var join *[]byte // only when a character cut short waits to be joined with p
	if w.carry.n > 0 {
		join = encBufs.Get().(*[]byte)
		defer putEncBuf(join)
	}
	if src := w.carry.split(p, join); len(src) > 0 {
		w.event(Output[0], src)
	}
	return len(p), nil
}

// Resize records that the terminal is now cols×rows.
func (w *Writer) Resize(cols, rows int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || cols <= 0 || rows <= 0 {
		return
	}
	var b [24]byte
	s := strconv.AppendInt(b[:0], int64(cols), 10)
	s = append(s, 'x')
	s = strconv.AppendInt(s, int64(rows), 10)
	w.event(Resize[0], s)
}

// Close records what is left (a character cut short, as U+FFFD) and closes
// the file Create opened. It returns the first write
// error. Safe to call twice.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.err
	}
	w.closed = true
	if rest := w.carry.take(); len(rest) > 0 && !w.stopped {
		w.event(Output[0], rest)
	}
	w.stopped = true
	if w.file != nil {
		if err := w.file.Close(); err != nil && w.err == nil {
			w.err = fmt.Errorf("close recording: %w", err)
		}
	}
	return w.err
}

// Size is how many bytes the recording holds so far.
func (w *Writer) Size() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.written
}

func putEncBuf(b *[]byte) {
	if cap(*b) <= maxEncBuf {
		*b = (*b)[:0]
		encBufs.Put(b)
	}
}

// event encodes one event and writes it, or stops the recording at its cap.
func (w *Writer) event(code byte, data []byte) {
	enc := encBufs.Get().(*[]byte)
	defer putEncBuf(enc)
	secs := w.now().Sub(w.start).Seconds()
	line := appendEvent((*enc)[:0], secs, code, data)
	if w.max > 0 && w.written+int64(len(line))+w.reserve > w.max {
		line = appendEvent(line[:0], secs, Output[0], []byte(w.note))
		w.put(line)
		w.stopped = true
		w.log.Info("recording reached its size cap: nothing more is recorded", "max_size", w.max)
		*enc = line
		return
	}
	w.put(line)
	*enc = line
}

// put writes b out.
func (w *Writer) put(b []byte) {
	if w.err != nil {
		return
	}
	if _, err := w.dst.Write(b); err != nil {
		w.fail(err)
		return
	}
	w.written += int64(len(b))
}

// fail stops the recording at its first write error.
func (w *Writer) fail(err error) {
	if w.err != nil {
		return
	}
	w.err = fmt.Errorf("write recording: %w", err)
	w.stopped = true
	if errors.Is(err, syscall.ENOSPC) {
		w.log.Warn("the disk is full: the recording stops here", "error", err)
		return
	}
	w.log.Warn("the recording cannot be written: it stops here", "error", err)
}
