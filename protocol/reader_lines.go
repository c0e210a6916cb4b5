package protocol

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// ModeLines: escape-stripped bytes are assembled into lines. A bare carriage
// return starts the line over (spinners, progress bars); tabs become spaces;
// backspace takes back the last byte; other control bytes are dropped.
//
// The work is per run of text and per line, not per byte: runs between
// control bytes are found eight bytes at a time and appended whole, a line
// that arrives whole in one segment is read from the segment without a copy,
// and a line that cannot matter is not classified (see mayMatter).

func (r *Reader) lineBytes(seg []byte, _ eraseKind, _ int) {
	for len(seg) > 0 {
		i := indexControl(seg)
		if i < 0 {
			r.text(seg)
			return
		}
		// A whole line at the start of an empty one, ended by "\n" or
		// "\r\n": read it where it lies.
		if len(r.cur) == 0 && !r.cr {
			end := -1
			switch {
			case seg[i] == '\n':
				end = i + 1
			case seg[i] == '\r' && i+1 < len(seg) && seg[i+1] == '\n':
				end = i + 2
			}
			if end > 0 {
				r.endLineBytes(seg[:min(i, maxLine)], max(0, i-maxLine))
				seg = seg[end:]
				continue
			}
		}
		if i > 0 {
			r.text(seg[:i])
		}
		switch seg[i] {
		case '\n':
			r.endLine()
		case '\r':
			r.cr = true
		case '\b':
			if len(r.cur) > 0 {
				r.cur = r.cur[:len(r.cur)-1]
			}
		case '\t':
			r.text(space)
		}
		seg = seg[i+1:]
	}
}

var space = []byte{' '}

// text appends a run of printable bytes (none below 0x20) to the line, up
// to maxLine; a carriage return before it started the line over.
func (r *Reader) text(run []byte) {
	if r.cr {
		r.cur = r.cur[:0]
		r.cr, r.cut = false, 0
	}
	room := max(0, maxLine-len(r.cur))
	r.cur = append(r.cur, run[:min(len(run), room)]...)
	r.cut += max(0, len(run)-room)
}

// indexControl returns the index of the first byte below 0x20 in b, or -1.
func indexControl(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// The lowest flagged byte is the first below 0x20 (flags above it
		// may be false, from the borrow).
		if m := (x - 0x20*ones) &^ x & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return i
		}
	}
	return -1
}

func (r *Reader) endLine() {
	r.endLineBytes(r.cur, r.cut)
	r.cur = r.cur[:0]
	r.cr, r.cut = false, 0
}

// endLineBytes reads one finished line, of which cut bytes past maxLine
// were dropped.
func (r *Reader) endLineBytes(b []byte, cut int) {
	r.tail.line(b)
	if r.suspect != nil {
		r.settle(string(b)) // a rejection held before this line
	}
	if cut > 0 && !r.cutLog {
		r.cutLog = true
		r.log.Info("the agent printed a line longer than a line is read: only its start is read, and a block holding it is not recorded",
			"bytes", len(b)+cut, "read", maxLine)
	}
	if r.parser.idle() && !mayMatter(b) {
		return
	}
	if cut > 0 {
		r.parser.cut = len(b) + cut
	}
	l := classify(string(b))
	if l.kind == kindText && l.text == CompleteMarker {
		r.complete(1)
	}
	r.parser.feed(l)
	if len(r.parser.done) > 0 {
		r.handleAll(r.parser.take())
	}
	if r.suspect != nil {
		r.settle(string(b)) // a rejection this line ended
	}
}

// idle reports whether the parser is outside a block and waits for no late
// optional lines of one (held or passed): only a line that starts a block
// or is CompleteMarker can change anything then.
func (p *blockParser) idle() bool { return !p.active && !p.held && !p.passed }

// mayMatter reports whether a line read outside a block can start one or be
// CompleteMarker: only a line that classifies as "CHECKPOINT: …" or as
// CompleteMarker can, and both hold "CHECKPOINT" unless classify took "**"
// markup out of the middle of the word.
func mayMatter(b []byte) bool {
	return bytes.Contains(b, []byte("CHECKPOINT")) || bytes.Contains(b, []byte("**"))
}

func (r *Reader) handleAll(cs []candidate) {
	for i := range cs {
		r.report(&cs[i], cs[i].key())
	}
}

// quietLines takes the block being read if it is already complete and valid;
// one still missing lines waits for more output (or Flush).
func (r *Reader) quietLines() {
	r.release() // a held rejection: nothing went on with it
	if !r.parser.active {
		return
	}
	peek := r.parser
	peek.done = nil
	peek.c.lines = append([]string(nil), r.parser.c.lines...)
	peek.end(true, "")
	if !peek.done[0].valid() {
		return
	}
	r.parser.end(true, "")
	r.parser.hold() // its optional lines may come after the pause
	r.handleAll(r.parser.take())
}
