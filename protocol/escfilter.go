package protocol

import (
	"bytes"
	"strconv"
)

// escFilter is a byte-level state machine over terminal output, kept across
// writes. In screen mode it drops OSC strings (x/vt ends an OSC at byte 0x9C,
// which occurs inside UTF-8 glyphs in titles, and prints the rest; see
// charmbracelet/x#848) and reports erase-display CSI 2 J / CSI 3 J. In lines
// mode it drops every escape sequence.
type escFilter struct {
	state  escState
	params [8]byte // CSI parameter bytes, enough to tell "2" and "3"
	np     int
	csiAt  int // index in out where the current CSI began, -1 if in an earlier write
	// inFrame is set between CSI ?2026h and CSI ?2026l (synchronized output):
	// the program is in the middle of drawing a frame.
	inFrame bool
	frames  uint64 // frames ended so far
	// rows and cols, when set (screen mode), bound the margins programs
	// set (DECSTBM, CSI top ; bottom r, and DECSLRM, CSI left ; right s):
	// x/vt takes a margin past the screen as it is and then indexes out of
	// range (a panic) on the next scroll or insert — which a stale region
	// sent before the program saw a resize, or any program, can ask for.
	rows, cols int
}

type escState uint8

const (
	stGround    escState = iota
	stEsc                // after ESC
	stEscInter           // ESC followed by an intermediate byte, e.g. ESC ( B
	stCSI                // ESC [ ...
	stString             // OSC, DCS, SOS, PM, APC body
	stStringEsc          // ESC inside a string: maybe ST
)

// eraseKind is what an erase-display sequence asked for.
type eraseKind uint8

const (
	eraseNone   eraseKind = iota
	eraseScreen           // CSI 2 J
	eraseSaved            // CSI 3 J: erase the scrollback too
)

// segmentFunc receives filtered bytes; erase is set when seg ends with an
// erase-display sequence, which began at seg[csiAt] (csiAt < 0: in an earlier
// segment).
type segmentFunc func(seg []byte, erase eraseKind, csiAt int)

// filter passes p through, minus OSC strings (and, with stripAll, minus every
// escape sequence), appending kept bytes to buf. It calls emit for each
// segment, ending a segment after CSI 2 J and CSI 3 J. It returns buf for reuse.
// With stripAll nothing is copied: emit gets each run of text between escape
// sequences as a slice of p.
func (f *escFilter) filter(buf, p []byte, stripAll bool, emit segmentFunc) []byte {
	out := buf[:0]
	f.csiAt = -1
	for i := 0; i < len(p); i++ {
		if f.state == stGround {
			// Text runs to the next ESC: taken whole, and with stripAll
			// handed to emit as it is, uncopied (nothing else is kept
			// then). The ESC is kept once the next byte says what it starts.
			j := bytes.IndexByte(p[i:], 0x1b)
			run := p[i:]
			if j >= 0 {
				run = p[i : i+j]
			}
			switch {
			case !stripAll:
				out = append(out, run...)
			case len(run) > 0:
				emit(run, eraseNone, -1)
			}
			if j < 0 {
				break
			}
			i += j
			f.state = stEsc
			continue
		}
		b := p[i]
		switch f.state {
		case stEsc:
			switch {
			case b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_':
				f.state = stString
				continue
			case b == 0x1b:
				continue
			case b == '[':
				f.state = stCSI
				f.np = 0
			case b >= 0x20 && b <= 0x2f:
				f.state = stEscInter
			default:
				f.state = stGround
			}
			if !stripAll {
				f.csiAt = len(out)
				out = append(out, 0x1b, b)
			}
		case stEscInter:
			if b == 0x1b {
				f.state = stEsc
				continue
			}
			if b < 0x20 || b > 0x2f {
				f.state = stGround
			}
			if !stripAll {
				out = append(out, b)
			}
		case stCSI:
			if b == 0x1b {
				f.state = stEsc
				continue
			}
			if !stripAll {
				out = append(out, b)
			}
			switch {
			case b >= 0x30 && b <= 0x3f:
				if f.np < len(f.params) {
					f.params[f.np] = b
				}
				f.np++
			case b >= 0x20 && b <= 0x2f, b < 0x20:
				// intermediates; control bytes inside CSI are executed
			case b >= 0x40 && b <= 0x7e:
				f.state = stGround
				if (b == 'h' || b == 'l') && f.np == 5 && string(f.params[:5]) == "?2026" {
					if f.inFrame && b == 'l' {
						f.frames++
					}
					f.inFrame = b == 'h'
				}
				if b == 'r' && f.rows > 0 && !stripAll {
					out = f.boundMargins(out, f.rows)
				}
				if b == 's' && f.cols > 0 && f.np > 0 && !stripAll {
					out = f.boundMargins(out, f.cols)
				}
				if b == 'J' && f.np == 1 && !stripAll && (f.params[0] == '2' || f.params[0] == '3') {
					kind := eraseScreen
					if f.params[0] == '3' {
						kind = eraseSaved
					}
					emit(out, kind, f.csiAt)
					out = out[:0]
					f.csiAt = -1
				}
			default:
				f.state = stGround
			}
		case stString:
			switch b {
			case 0x07, 0x18, 0x1a: // BEL ends an OSC; CAN and SUB abort any string
				f.state = stGround
			case 0x1b:
				f.state = stStringEsc
			}
		case stStringEsc:
			switch b {
			case '\\':
				f.state = stGround
			case 0x1b:
			default:
				f.state = stString
			}
		}
	}
	if len(out) > 0 {
		emit(out, eraseNone, f.csiAt)
	}
	return out
}

// boundMargins rewrites the margins just copied to the end of out (CSI a ; b
// r or s) so that the second is at most limit, the screen's rows or columns.
// Margins it cannot rewrite (begun in an earlier write, or too long to have
// been kept) are cancelled instead: CAN in place of the final byte, as if
// never sent.
func (f *escFilter) boundMargins(out []byte, limit int) []byte {
	p := f.params[:min(f.np, len(f.params))]
	if len(p) > 0 && (p[0] < '0' || p[0] > '9') && p[0] != ';' {
		return out // a private sequence (CSI ? … r), not DECSTBM
	}
	top, bottom, ok := 0, 0, f.np <= len(f.params) && f.csiAt >= 0
	field := &top
	for _, c := range p {
		switch {
		case c == ';' && field == &top:
			field = &bottom
		case c >= '0' && c <= '9' && *field < 1<<20:
			*field = *field*10 + int(c-'0')
		default:
			ok = false
		}
	}
	if !ok {
		out[len(out)-1] = 0x18
		return out
	}
	if bottom <= limit {
		return out
	}
	final := out[len(out)-1]
	out = append(out[:f.csiAt], "\x1b["...)
	if top > 0 {
		out = strconv.AppendInt(out, int64(top), 10)
	}
	out = append(out, ';')
	out = strconv.AppendInt(out, int64(limit), 10)
	return append(out, final)
}
