package session

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/face"
)

const (
	// viewerBacklog bounds the output queued for one viewer: a viewer that
	// falls this far behind is dropped, never waited on.
	viewerBacklog = 1 << 20
	// plainTail is how much of a plain agent's raw output is kept for its
	// screen (its last PlainScreenLines lines: 330 bytes each).
	plainTail = 16 << 10
	// PlainScreenLines is how many of a plain agent's last lines make its
	// screen.
	PlainScreenLines = 50
)

// ErrEnded: the session is over; there is nothing to look at or type into.
var ErrEnded = errors.New("the session has ended")

// tap hands the session's raw output to the people looking in (warden
// attach, the page) — after a snapshot of the screen taken under the same
// lock, so that a viewer misses nothing and sees nothing twice — and keeps a
// plain agent's last output for its screen.
type tap struct {
	mu      sync.Mutex
	viewers map[*Viewer]struct{}
	ended   bool
	tail    tailRing // plain agents: the last plainTail bytes
	lines   bool     // keep the tail (ModeLines)
	seq     atomic.Uint64
}

// Viewer is one person's view of the session's terminal (face.Viewer):
// its opening, then every chunk of output, until the viewer detaches, falls
// behind by viewerBacklog or the session ends.
type Viewer struct {
	opening face.Opening

	t       *tap
	ch      chan []byte
	backlog atomic.Int64
	end     atomic.Value // string: why the stream ended
	closed  bool         // under t.mu
}

var _ face.Viewer = (*Viewer)(nil)

// Opening is the screen as it was when the viewer attached.
func (v *Viewer) Opening() face.Opening { return v.opening }

// C delivers the output, chunk by chunk; it is closed when the stream ends
// (End says why). Hand every chunk received to Taken.
func (v *Viewer) C() <-chan []byte { return v.ch }

// Taken accounts for a chunk received from C: it no longer counts against
// the viewer's backlog.
func (v *Viewer) Taken(chunk []byte) { v.backlog.Add(-int64(len(chunk))) }

// End says why the stream ended ("" while it runs).
func (v *Viewer) End() string {
	s, _ := v.end.Load().(string)
	return s
}

// Close detaches the viewer.
func (v *Viewer) Close() {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	v.t.drop(v, face.EndDetached)
}

// write takes one chunk of the agent's output and gives it to the reader
// under the tap's lock, so that a snapshot and the stream agree.
func (t *tap) write(p []byte, r *protocol.Reader) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r.Write(p)
	t.seq.Add(uint64(len(p)))
	if t.lines {
		t.tail.Write(p)
	}
	if len(t.viewers) == 0 {
		return
	}
	chunk := append([]byte(nil), p...) // the runner reuses its buffer; the viewers share this copy
	for v := range t.viewers {
		if v.backlog.Add(int64(len(chunk))) > viewerBacklog {
			t.drop(v, face.EndSlow)
			continue
		}
		select {
		case v.ch <- chunk:
		default:
			t.drop(v, face.EndSlow)
		}
	}
}

// drop ends v's stream; t.mu is held.
func (t *tap) drop(v *Viewer, why string) {
	if v.closed {
		return
	}
	v.closed = true
	v.end.Store(why)
	delete(t.viewers, v)
	close(v.ch)
}

// close ends every viewer's stream: the session is over.
func (t *tap) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ended = true
	for v := range t.viewers {
		t.drop(v, face.EndSession)
	}
}

// Attach adds a viewer: the screen now, then the live output.
func (s *Session) Attach() (*Viewer, error) {
	t := &s.tap
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended || s.reader == nil {
		return nil, ErrEnded
	}
	v := &Viewer{t: t, ch: make(chan []byte, 4096), opening: face.Opening{Rows: int(s.cfg.Size.Rows), Cols: int(s.cfg.Size.Cols)}}
	if draw, alt := s.reader.Render(); draw != "" || alt {
		v.opening.Screen, v.opening.Alt = draw, alt
	} else if lines := lastLines(t.tail.Bytes(), PlainScreenLines); len(lines) > 0 {
		v.opening.Screen = strings.Join(lines, "\r\n") + "\r\n"
	}
	if t.viewers == nil {
		t.viewers = map[*Viewer]struct{}{}
	}
	t.viewers[v] = struct{}{}
	return v, nil
}

// Screen is the agent's screen as plain text, as a person would see it: the
// emulator's rows (TUIs, trailing blank rows left out) or a plain agent's
// last PlainScreenLines lines.
func (s *Session) Screen() ([]string, error) {
	t := &s.tap
	t.mu.Lock()
	defer t.mu.Unlock()
	if s.reader == nil {
		return nil, ErrEnded
	}
	if !t.lines {
		rows := s.reader.Rows()
		for len(rows) > 0 && strings.TrimSpace(rows[len(rows)-1]) == "" {
			rows = rows[:len(rows)-1]
		}
		return rows, nil
	}
	return lastLines(t.tail.Bytes(), PlainScreenLines), nil
}

// OutputSeq counts the bytes of output so far: a screen whose count has not
// moved has not changed.
func (s *Session) OutputSeq() uint64 { return s.tap.seq.Load() }

// Viewers is how many viewers are attached now.
func (s *Session) Viewers() int {
	s.tap.mu.Lock()
	defer s.tap.mu.Unlock()
	return len(s.tap.viewers)
}

func lastLines(raw []byte, n int) []string {
	lines := protocol.PlainLines(raw)
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// Plain reports whether the agent is line-oriented (its screen is its last
// lines).
func (s *Session) Plain() bool { return s.prof.Mode == protocol.ModeLines }
