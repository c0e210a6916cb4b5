package asciicast

import (
	"bufio"
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

// DefaultFlushEvery is how long recorded output may wait in the Writer's
// buffer before it is written out.
const DefaultFlushEvery = time.Second

// bufSize is the Writer's buffer: a write syscall per 64 KiB of recording
// (or per DefaultFlushEvery when output is slow).
const bufSize = 64 << 10

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
	// FlushEvery: 0 is DefaultFlushEvery.
	FlushEvery time.Duration
	// Now is the clock of the timestamps; nil is time.Now.
	Now func() time.Time
}

// Writer records output and resizes as asciicast v2 events. It is safe for
// concurrent use. A chunk costs a lock, a clock read, its JSON encoding into
// a reused buffer and a copy into the write buffer: no allocation, no
// syscall until 64 KiB are buffered or DefaultFlushEvery has passed. Write
// never fails the caller: a failed write stops the recording, logged once.
type Writer struct {
	log   hclog.Logger
	dst   io.Writer
	file  io.Closer // nil unless Create opened it
	start time.Time
	now   func() time.Time
	every time.Duration

	mu      sync.Mutex
	bw      *bufio.Writer
	max     int64 // 0: no cap
	reserve int64 // bytes kept for the stop note
	note    string
	written int64
	carry   utf8Carry
	join    []byte // carry + chunk, reused
	line    []byte // the event being encoded, reused
	timer   *time.Timer
	armed   bool // the timer will flush
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
	w := &Writer{log: logger, dst: dst, now: o.Now, every: o.FlushEvery, max: o.MaxSize, note: o.StopNote,
		bw: bufio.NewWriterSize(dst, bufSize), line: make([]byte, 0, 4096)}
	if w.now == nil {
		w.now = time.Now
	}
	if w.every <= 0 {
		w.every = DefaultFlushEvery
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
	w.flush() // a recording always starts with its header on disk
	return w, w.err
}

// Write records p as an output event. It always returns len(p), nil.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return len(p), nil
	}
	if src := w.carry.split(p, &w.join); len(src) > 0 {
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

// Close records what is left (a character cut short, as U+FFFD), writes the
// buffer out and closes the file Create opened. It returns the first write
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
	if w.timer != nil {
		w.timer.Stop()
	}
	w.flush()
	if w.file != nil {
		if err := w.file.Close(); err != nil && w.err == nil {
			w.err = fmt.Errorf("close recording: %w", err)
		}
	}
	return w.err
}

// Size is how many bytes the recording holds so far (buffered included).
func (w *Writer) Size() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.written
}

// event encodes one event and buffers it, or stops the recording at its cap.
func (w *Writer) event(code byte, data []byte) {
	secs := w.now().Sub(w.start).Seconds()
	w.line = appendEvent(w.line[:0], secs, code, data)
	if w.max > 0 && w.written+int64(len(w.line))+w.reserve > w.max {
		w.line = appendEvent(w.line[:0], secs, Output[0], []byte(w.note))
		w.put(w.line)
		w.stopped = true
		w.flush()
		w.log.Info("recording reached its size cap: nothing more is recorded", "max_size", w.max)
		return
	}
	w.put(w.line)
}

// put buffers b and makes sure a flush follows within w.every.
func (w *Writer) put(b []byte) {
	if _, err := w.bw.Write(b); err != nil {
		w.fail(err)
		return
	}
	w.written += int64(len(b))
	if !w.armed && w.bw.Buffered() > 0 && !w.stopped {
		w.armed = true
		if w.timer == nil {
			w.timer = time.AfterFunc(w.every, w.tick)
		} else {
			w.timer.Reset(w.every)
		}
	}
}

func (w *Writer) tick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.armed = false
	if !w.closed {
		w.flush()
	}
}

func (w *Writer) flush() {
	if w.err != nil {
		return
	}
	if err := w.bw.Flush(); err != nil {
		w.fail(err)
	}
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
