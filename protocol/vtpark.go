package protocol

import (
	"reflect"
	"unsafe"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"
	"github.com/hashicorp/go-hclog"
)

// x/vt keeps two full grids per emulator, the main screen and the alternate
// one, at 112 bytes a cell: 1.1 MB each at 200×50. A program only ever draws
// on one of them. The other is blank (the alternate screen is cleared each
// time it is entered and nothing shows it once left; a program that enters it
// at once, as Claude Code does, leaves the main screen blank) — and a blank
// grid can be made again on demand. parker swaps the screen not in use for a
// 1×1 grid while it is blank, and grows it back to the terminal's size, blank,
// at the moment the program switches to it (x/vt's AltScreen callback, called
// in the middle of the write, before anything is drawn on it). A main screen
// with text on it is kept whole while the program is on the alternate screen:
// the program's return shows it again.
//
// The grid is x/vt's unexported Screen.buf, reached like trimEmulator's
// fields, its type checked first: if it is not what it was when this was
// written, nothing is parked and the debug log says so.
type parker struct {
	em     *vt.Emulator
	scrs   [2]*vt.Screen
	bufs   [2]**uv.RenderBuffer
	parked [2]bool // never both: the screen in use is never parked
}

// newParker takes a new emulator, made at any size: it gives the main screen
// a blank cols×rows grid, parks the alternate screen, sizes the emulator and
// follows its switches from then on. nil when x/vt's fields are not as
// expected (the emulator is left as it was).
func newParker(log hclog.Logger, em *vt.Emulator, cols, rows int) *parker {
	scrs, ok := screensOf(reflect.ValueOf(em).Elem())
	if !ok {
		log.Debug("cannot park the screen not in use: x/vt's screens are not as expected")
		return nil
	}
	p := &parker{em: em, scrs: scrs}
	for i, scr := range scrs {
		buf := reflect.ValueOf(scr).Elem().FieldByName("buf")
		if !buf.IsValid() || buf.Type() != reflect.TypeFor[*uv.RenderBuffer]() {
			log.Debug("cannot park the screen not in use: x/vt's screen buffer is not as expected")
			return nil
		}
		p.bufs[i] = (**uv.RenderBuffer)(unsafe.Pointer(buf.UnsafeAddr()))
	}
	em.SetCallbacks(vt.Callbacks{AltScreen: p.switched})
	p.park(1)
	*p.bufs[0] = gridOf(cols, rows) // blank, as a new emulator's
	p.resize(cols, rows)
	return p
}

// gridOf returns a blank cols×rows grid in one allocation. x/vt allocates
// each row on its own: 200 cells of 112 bytes are 22,400 bytes, which Go
// rounds up to its 24,576-byte size class — 9 % of every grid spent on
// nothing. The rows are cut from one slab with their capacity at their
// length, so that a row x/vt grows (a resize) is copied out, never written
// over the next one; x/vt moves cells between rows, never rows.
func gridOf(cols, rows int) *uv.RenderBuffer {
	cells := make([]uv.Cell, cols*rows)
	for i := range cells {
		cells[i] = uv.EmptyCell
	}
	lines := make([]uv.Line, rows)
	for y := range lines {
		lines[y] = cells[y*cols : (y+1)*cols : (y+1)*cols]
	}
	return &uv.RenderBuffer{Buffer: &uv.Buffer{Lines: lines}, Touched: make([]*uv.LineData, rows)}
}

// switched runs when the program has just switched screens: the one it is on
// now gets its full size back, the other is parked if it is blank.
func (p *parker) switched(alt bool) {
	now, other := 0, 1
	if alt {
		now, other = 1, 0
	}
	p.unpark(now)
	if other == 1 || p.blank(other) {
		p.park(other)
	}
}

// resize resizes the emulator without growing a parked grid: x/vt resizes
// both screens, so while it does, a parked screen shares the grid of the
// one in use (resized once, by whichever comes first), and gets a 1×1 grid
// of its own again after.
func (p *parker) resize(cols, rows int) {
	active := 0
	if p.em.IsAltScreen() {
		active = 1
	}
	for i := range 2 {
		if p.parked[i] {
			*p.bufs[i] = *p.bufs[active]
		}
	}
	p.em.Resize(cols, rows)
	for i := range 2 {
		if p.parked[i] {
			*p.bufs[i] = uv.NewRenderBuffer(1, 1)
		}
	}
}

func (p *parker) park(i int) {
	if p.parked[i] {
		return
	}
	*p.bufs[i] = uv.NewRenderBuffer(1, 1)
	p.parked[i] = true
}

// unpark gives a parked screen the size of the other one (the terminal's),
// blank.
func (p *parker) unpark(i int) {
	if !p.parked[i] {
		return
	}
	other := p.scrs[1-i]
	cols, rows := other.Width(), other.Height()
	*p.bufs[i] = gridOf(cols, rows)
	p.scrs[i].Resize(cols, rows) // the scroll region: the whole screen
	p.parked[i] = false
}

// blank reports whether screen i shows nothing: every cell is an empty one.
func (p *parker) blank(i int) bool {
	s := p.scrs[i]
	for y := range s.Height() {
		for x := range s.Width() {
			if c := s.CellAt(x, y); c != nil && !c.Equal(&uv.EmptyCell) && !c.IsZero() {
				return false
			}
		}
	}
	return true
}

// heal unparks the screen in use, should a failure have left it parked
// (vtguard.go): the program draws on it next.
func (p *parker) heal() {
	active := 0
	if p.em.IsAltScreen() {
		active = 1
	}
	p.unpark(active)
}
