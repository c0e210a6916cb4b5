package protocol

import (
	"io"
	"strings"
	"sync"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"
	"github.com/hashicorp/go-hclog"
)

// Screen is a virtual terminal: it reads what a person would see.
type Screen interface {
	// Write feeds raw pty output.
	Write(p []byte) (int, error)
	// ScrolledOff returns the rows that left the top of the screen since the
	// last call, oldest first, and forgets them. Cleared is true when the
	// program erased the saved lines (CSI 3 J) since the last call: rows
	// returned earlier are no longer on the terminal.
	ScrolledOff() (rows []Row, cleared bool)
	// Rows returns the visible screen, top to bottom.
	Rows() []Row
	// AltScreen reports whether the program is on the alternate screen.
	AltScreen() bool
	// InFrame reports whether the program is between the start and the end
	// of a synchronized update (CSI ?2026h … CSI ?2026l): the screen is half
	// drawn. frame counts the frames completed so far.
	InFrame() (in bool, frame uint64)
	// Resize changes the screen's size, as the pty's was changed.
	Resize(cols, rows int)
	// Render returns what redraws the visible screen, with its styles and
	// the cursor where the program left it, on a terminal of the same size.
	Render() string
	// Styled returns the visible screen's rows with their styles, one
	// string a row, and the cursor: what a viewer of another size draws a
	// part of (internal/viewport).
	Styled() (rows []string, cursor Cursor)
	// Close stops the reply goroutine.
	Close() error
}

// Row is one screen row as text, trailing spaces trimmed. Wrapped is set when
// the row runs to the last column: the text probably continues on the next
// row (the emulator does not record auto-wraps, so this is a guess).
type Row struct {
	Text    string
	Wrapped bool
}

// vtScreen implements Screen with charmbracelet/x/vt, with the two
// workarounds of research/pty-terminal.md §2.4: a goroutine drains the
// emulator's replies (DA, DSR, OSC colour queries; Write blocks without it)
// and hands them to reply, and OSC strings are dropped before feeding.
// Screen erases (CSI 2 J) do not count as scrolling: x/vt pushes the erased
// screen into its scrollback, which no real terminal user sees as output.
type vtScreen struct {
	log     hclog.Logger
	em      *vt.Emulator
	failed  int     // times the emulator failed on the output (feed)
	park    *parker // the screen not in use, parked (vtpark.go); nil: both kept
	cols    int
	filter  escFilter
	hidden  bool // the program hid the cursor
	buf     []byte
	scroll  []Row
	cleared bool

	done    chan struct{}
	closeMu sync.Mutex
	closed  bool
}

// Resize changes the emulator's size (the pty's window changed).
func (s *vtScreen) Resize(cols, rows int) {
	if cols <= 0 || rows <= 0 {
		return
	}
	if s.park != nil {
		s.park.resize(cols, rows)
	} else {
		s.em.Resize(cols, rows)
	}
	s.cols, s.filter.rows, s.filter.cols = cols, rows, cols
}

// NewScreen returns a Screen of cols×rows. reply receives the emulator's
// answers to terminal queries, to be written back to the pty; it may be nil.
// Call Close when done.
func NewScreen(logger hclog.Logger, cols, rows int, reply func([]byte)) Screen {
	return newVTScreen(logger, cols, rows, reply, true)
}

// newVTScreen is NewScreen; park false keeps both of x/vt's grids (to
// compare with).
func newVTScreen(logger hclog.Logger, cols, rows int, reply func([]byte), park bool) *vtScreen {
	if cols <= 0 {
		cols = 200
	}
	if rows <= 0 {
		rows = 50
	}
	s := &vtScreen{log: logger.Named("screen"), cols: cols, done: make(chan struct{})}
	s.filter.rows, s.filter.cols = rows, cols
	if park {
		// Made at 1×1 and sized by the parker: x/vt would make both grids
		// at full size, one of them at once garbage (1.1 MB at 200×50; a
		// team's agents all start at once).
		s.em = vt.NewEmulator(1, 1)
		if s.park = newParker(s.log, s.em, cols, rows); s.park == nil {
			s.em.Resize(cols, rows)
		}
	} else {
		s.em = vt.NewEmulator(cols, rows)
	}
	cb := vt.Callbacks{CursorVisibility: func(visible bool) { s.hidden = !visible }}
	if s.park != nil {
		cb.AltScreen = s.park.switched // the parker's, set by newParker
	}
	s.em.SetCallbacks(cb)
	trimEmulator(s.log, s.em)
	go s.drainReplies(reply)
	return s
}

func (s *vtScreen) drainReplies(reply func([]byte)) {
	defer close(s.done)
	buf := make([]byte, 4096)
	for {
		n, err := s.em.Read(buf)
		if n > 0 && reply != nil {
			reply(append([]byte(nil), buf[:n]...))
		}
		if err != nil {
			s.log.Debug("reply pipe closed", "error", err)
			return
		}
	}
}

func (s *vtScreen) Write(p []byte) (int, error) {
	s.buf = s.filter.filter(s.buf, p, false, s.segment)
	return len(p), nil
}

// segment feeds one filtered segment; an erase at its end is fed on its own
// so that rows the erase pushes into x/vt's scrollback can be discarded.
func (s *vtScreen) segment(seg []byte, erase eraseKind, csiAt int) {
	if erase == eraseNone {
		s.feed(seg)
		s.collect()
		return
	}
	if csiAt > 0 {
		s.feed(seg[:csiAt])
		s.collect()
		seg = seg[csiAt:]
	}
	s.feed(seg)
	if erase == eraseSaved {
		s.scroll = s.scroll[:0]
		s.cleared = true
	}
	s.emptyScrollback()
}

func (s *vtScreen) collect() {
	sb := s.em.Scrollback()
	if sb == nil || sb.Len() == 0 {
		return
	}
	for _, l := range sb.Lines() {
		s.scroll = append(s.scroll, lineRow(l, s.cols))
	}
	s.emptyScrollback()
}

// emptyScrollback empties x/vt's scrollback and lets go of its lines: its
// Clear only shortens the slice, so the lines stay reachable from the
// backing array until overwritten — 300 long lines scrolled by in one write
// kept 5.8 MB per screen for good.
func (s *vtScreen) emptyScrollback() {
	if sb := s.em.Scrollback(); sb != nil {
		clear(sb.Lines())
	}
	s.em.ClearScrollback()
}

func lineRow(l uv.Line, cols int) Row {
	var b strings.Builder
	wrapped := false
	for x := range l {
		c := &l[x]
		if c.Content == "" {
			continue
		}
		b.WriteString(c.Content)
		if x == cols-1 && c.Content != " " && !boxDrawing(c.Content) {
			wrapped = true
		}
	}
	return Row{Text: strings.TrimRight(b.String(), " "), Wrapped: wrapped}
}

func (s *vtScreen) ScrolledOff() ([]Row, bool) {
	rows, cleared := s.scroll, s.cleared
	s.scroll, s.cleared = nil, false
	return rows, cleared
}

func (s *vtScreen) Rows() []Row {
	h, w := s.em.Height(), s.em.Width()
	rows := make([]Row, h)
	line := make(uv.Line, w)
	for y := range h {
		for x := range w {
			if c := s.em.CellAt(x, y); c != nil {
				line[x] = *c
			} else {
				line[x] = uv.Cell{}
			}
		}
		rows[y] = lineRow(line, w)
	}
	return rows
}

func (s *vtScreen) AltScreen() bool { return s.em.IsAltScreen() }

func (s *vtScreen) InFrame() (bool, uint64) { return s.filter.inFrame, s.filter.frames }

// Close stops the reply goroutine by closing the emulator's reply pipe
// (the emulator's own Close races with a pending Read inside x/vt); queries
// that arrive later are not answered.
func (s *vtScreen) Close() error {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if c, ok := s.em.InputPipe().(io.Closer); ok {
		_ = c.Close()
	}
	<-s.done
	return nil
}

func boxDrawing(s string) bool {
	for _, r := range s {
		if r >= 0x2500 && r <= 0x259F {
			return true
		}
	}
	return false
}

// joinRows turns screen rows into text lines, joining a row that ran to the
// last column with the row after it.
func joinRows(rows []Row, out []string) []string {
	var b strings.Builder
	for _, r := range rows {
		if r.Wrapped {
			b.WriteString(r.Text)
			continue
		}
		if b.Len() > 0 {
			b.WriteString(r.Text)
			out = append(out, b.String())
			b.Reset()
			continue
		}
		out = append(out, r.Text)
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}
