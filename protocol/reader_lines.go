package protocol

// ModeLines: escape-stripped bytes are assembled into lines. A bare carriage
// return starts the line over (spinners, progress bars); tabs become spaces;
// other control bytes are dropped.

func (r *Reader) lineBytes(seg []byte, _ eraseKind, _ int) {
	for _, b := range seg {
		switch {
		case b == '\n':
			r.endLine()
		case b == '\r':
			r.cr = true
		case b == '\b':
			if len(r.cur) > 0 {
				r.cur = r.cur[:len(r.cur)-1]
			}
		case b == '\t' || b >= 0x20:
			if r.cr {
				r.cur = r.cur[:0]
				r.cr = false
			}
			if b == '\t' {
				b = ' '
			}
			if len(r.cur) < maxLine {
				r.cur = append(r.cur, b)
			}
		}
	}
}

func (r *Reader) endLine() {
	s := string(r.cur)
	r.cur = r.cur[:0]
	r.cr = false
	r.tail.line(s)
	l := classify(s)
	if l.kind == kindText && l.text == CompleteMarker {
		r.complete(1)
	}
	r.parser.feed(l)
	if len(r.parser.done) > 0 {
		r.handleAll(r.parser.take())
	}
}

func (r *Reader) handleAll(cs []candidate) {
	for i := range cs {
		r.report(&cs[i], cs[i].key())
	}
}

// quietLines takes the block being read if it is already complete and valid;
// one still missing lines waits for more output (or Flush).
func (r *Reader) quietLines() {
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
