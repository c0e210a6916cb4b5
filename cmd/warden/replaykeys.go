package main

import "time"

// A player's keyboard is also where the terminal answers the queries a
// replayed program made: a recorded CSI c (DA), CSI 6 n (DSR/CPR), CSI >q
// (XTVERSION) or OSC 11;? is answered on the player's stdin, and tmux's
// answers hold spaces ("\x1bP>|tmux 3.4\x1b\\") and a 'q' (DECRQSS
// "\x1bP1$r2 q\x1b\\"), which a key reader took for pause and quit. So do
// mouse and focus reports, when the recording turned them on. keyFilter
// passes the keys a person types and drops every escape sequence whole:
// CSI (a mouse report's three bytes after CSI M too), SS3, the strings (OSC, DCS, APC, PM, SOS, up to BEL or ST) and the
// two-byte escapes. A sequence is kept across reads (a reply may come in
// pieces); one left unfinished for staleEscape is given up at the next
// read, so that a lone Esc pressed, or a cut reply, never eats the keys
// after it.

// staleEscape is how long an unfinished escape sequence waits for its rest.
const staleEscape = 100 * time.Millisecond

type escState uint8

const (
	inGround    escState = iota
	inEsc                // after ESC
	inEscInter           // ESC, then intermediates (0x20–0x2f)
	inCSI                // ESC [
	inSS3                // ESC O
	inString             // OSC, DCS, APC, PM, SOS: up to BEL or ST
	inStringEsc          // ESC inside a string: ST when '\\' follows
	inX10                // ESC [ M: an X10 mouse report's three bytes follow
)

type keyFilter struct {
	state escState
	n     int       // bytes of the CSI so far; those of the X10 report left
	last  time.Time // the last read
}

// keys returns the bytes of p a person typed, at time now.
func (f *keyFilter) keys(p []byte, now time.Time) []byte {
	if f.state != inGround && now.Sub(f.last) > staleEscape {
		f.state = inGround
	}
	f.last = now
	var out []byte
	for _, b := range p {
		if f.step(b) {
			out = append(out, b)
		}
	}
	return out
}

// step takes one byte; it reports whether the byte is a key.
func (f *keyFilter) step(b byte) bool {
	switch f.state {
	case inGround:
		if b == 0x1b {
			f.state = inEsc
			return false
		}
		return true
	case inEsc:
		switch {
		case b == '[':
			f.state, f.n = inCSI, 0
		case b == 'O':
			f.state = inSS3
		case b == ']' || b == 'P' || b == '_' || b == '^' || b == 'X':
			f.state = inString
		case b == 0x1b:
		case b >= 0x20 && b <= 0x2f:
			f.state = inEscInter
		default:
			f.state = inGround
		}
	case inEscInter:
		if b < 0x20 || b > 0x2f {
			f.state = inGround
		}
	case inCSI:
		switch {
		case b == 'M' && f.n == 0: // a mouse report in the default (X10) encoding: its bytes may be ' ' or 'q'
			f.state, f.n = inX10, 3
		case b >= 0x40 && b <= 0x7e:
			f.state = inGround
		case b == 0x1b:
			f.state = inEsc
		case b < 0x20:
			return true // a control inside a CSI is executed, as a terminal does
		default:
			f.n++
		}
	case inX10:
		if f.n--; f.n == 0 {
			f.state = inGround
		}
	case inSS3:
		f.state = inGround
	case inString:
		switch b {
		case 0x07:
			f.state = inGround
		case 0x1b:
			f.state = inStringEsc
		}
	case inStringEsc:
		if b == '\\' {
			f.state = inGround
			return false
		}
		f.state = inEsc // an ESC that is no ST cuts the string short and starts a sequence
		return f.step(b)
	}
	return false
}
