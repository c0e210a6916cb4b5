// Package viewport shows a program's terminal — an agent's, a recording's —
// on a viewer's terminal of another size, as tmux shows a window larger than
// its client: the program's screen is kept at the program's own size in
// warden's terminal emulator (protocol.Screen), and the viewer is drawn the
// part of it that fits, each row cut at the viewer's edge (never wrapped
// onto the next), the part moved only as far as it takes to keep the
// program's cursor in sight, starting at the top-left. Where the two sizes
// are the same the output passes through as the program wrote it. The
// emulator answers no query: none reaches the viewer's terminal while the
// part is drawn.
package viewport

import (
	"io"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
)

// drawEvery bounds how often the part is drawn while output comes.
const drawEvery = 16 * time.Millisecond

// blank starts the emulator's screen over: the main screen, no margins,
// no origin mode, the cursor shown, no style, cleared with its saved lines.
const blank = "\x1b[?1049l\x1b[r\x1b[?6l\x1b[?25h\x1b[0m\x1b[H\x1b[2J\x1b[3J"

// Size is a terminal's size in cells.
type Size struct{ Cols, Rows int }

// View draws a program's terminal on the viewer's.
type View struct {
	mu     sync.Mutex
	out    io.Writer
	scr    protocol.Screen
	prog   Size // the program's terminal
	viewer Size // the viewer's
	part   part
	timer  *time.Timer // the next draw, when one is due
	err    error       // the first failed write to out
	closed bool
}

// New returns a view of a program's terminal of size prog on the viewer's
// terminal out, of size viewer; a zero viewer is no terminal (a file, a
// pipe): the output passes through. Close it when done.
func New(out io.Writer, prog, viewer Size) *View {
	v := &View{out: out, prog: prog, viewer: viewer}
	v.scr = protocol.NewScreen(hclog.NewNullLogger(), prog.Cols, prog.Rows, nil)
	v.part.reset()
	return v
}

// Clipped reports whether the viewer sees a part of the program's
// terminal, drawn by the view (the sizes differ), rather than its output
// as it was written.
func (v *View) Clipped() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.clipped()
}

func (v *View) clipped() bool { return v.viewer != Size{} && v.prog != v.viewer }

// Write takes the program's output.
func (v *View) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return 0, io.ErrClosedPipe
	}
	_, _ = v.scr.Write(p)
	if !v.clipped() {
		v.write(p)
	} else if v.timer == nil {
		v.timer = time.AfterFunc(drawEvery, v.drawLater)
	}
	return len(p), v.err
}

// Screen starts over from a drawing of the program's whole screen, of size
// prog (zero: as it was), on its alternate screen when alt: a new session,
// a viewer that attaches.
func (v *View) Screen(prog Size, draw []byte, alt bool) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	was, viewerAlt := v.clipped(), v.part.alt
	if !was { // the viewer's terminal followed the program's screens
		viewerAlt = v.scr.AltScreen()
	}
	if prog.Cols > 0 && prog.Rows > 0 && prog != v.prog {
		v.prog = prog
		v.scr.Resize(prog.Cols, prog.Rows)
	}
	start := []byte(blank)
	if alt {
		start = append(start, altSwitch(true)...)
	}
	_, _ = v.scr.Write(append(start, draw...))
	v.part.reset()
	v.part.alt = viewerAlt
	switch {
	case v.clipped():
		v.draw()
		return v.err
	case was:
		v.write([]byte(autowrapOn))
		if alt != viewerAlt {
			v.write([]byte(altSwitch(alt)))
		}
	case alt:
		v.write([]byte(altSwitch(true)))
	}
	v.write(draw)
	return v.err
}

// Resize says the viewer's terminal is now of size viewer: the view is
// drawn again at once, or the program's screen, when the sizes now match.
func (v *View) Resize(viewer Size) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if viewer != v.viewer && viewer.Cols > 0 && viewer.Rows > 0 {
		v.resized(func() { v.viewer = viewer })
	}
	return v.err
}

// Program says the program's terminal is now of size prog (a recording's
// resize event).
func (v *View) Program(prog Size) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if prog != v.prog && prog.Cols > 0 && prog.Rows > 0 {
		v.resized(func() {
			v.prog = prog
			v.scr.Resize(prog.Cols, prog.Rows)
		})
	}
	return v.err
}

// resized makes the change of size resize and draws what the viewer sees
// now (v.mu held): the part, or the program's screen as it is when the
// sizes now match, its output passing through again.
func (v *View) resized(resize func()) {
	was := v.clipped()
	if !was { // the viewer's terminal followed the program's screens
		v.part.alt = v.scr.AltScreen()
	}
	resize()
	v.part.reset()
	switch {
	case v.clipped():
		v.draw()
	case was:
		v.write([]byte(autowrapOn))
		if alt := v.scr.AltScreen(); alt != v.part.alt {
			v.write([]byte(altSwitch(alt)))
		}
		v.write([]byte(v.scr.Render()))
	}
}

// Note writes a line for the person below what the view shows.
func (v *View) Note(text string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.clipped() {
		v.write([]byte("\r\n" + text + "\r\n"))
		return v.err
	}
	v.draw()
	v.write([]byte(v.part.note(v.viewer, text)))
	return v.err
}

// Close draws what is due and leaves the viewer's cursor on a line of its
// own below the view, autowrap back on.
func (v *View) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return v.err
	}
	v.closed = true
	if v.timer != nil {
		v.timer.Stop()
		v.timer = nil
	}
	if v.clipped() {
		v.draw()
		v.write([]byte(v.part.leave(v.viewer, v.prog)))
	}
	v.scr.Close()
	return v.err
}

// drawLater is the timer's draw.
func (v *View) drawLater() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.timer = nil
	if !v.closed && v.clipped() {
		v.draw()
	}
}

// draw draws the part of the program's screen the viewer sees (v.mu held).
func (v *View) draw() {
	if v.timer != nil {
		v.timer.Stop()
		v.timer = nil
	}
	rows, cur := v.scr.Styled()
	v.write(v.part.draw(rows, cur, v.scr.AltScreen(), v.prog, v.viewer))
}

func (v *View) write(p []byte) {
	if len(p) == 0 || v.err != nil {
		return
	}
	if _, err := v.out.Write(p); err != nil {
		v.err = err
	}
}
