package protocol

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Render redraws the screen: reset, clear, each row at its place with its
// styles (x/vt's own rendering), and the cursor where the program left it.
func (s *vtScreen) Render() string {
	var b strings.Builder
	b.WriteString("\x1b[0m\x1b[H\x1b[2J")
	for i, line := range strings.Split(s.em.Render(), "\n") {
		fmt.Fprintf(&b, "\x1b[%d;1H%s\x1b[0m", i+1, line)
	}
	pos := s.em.CursorPosition()
	fmt.Fprintf(&b, "\x1b[%d;%dH", pos.Y+1, pos.X+1)
	return b.String()
}

// Cursor is where the program left the cursor (0-based), and whether it
// hid it.
type Cursor struct {
	X, Y   int
	Hidden bool
}

// Styled returns the visible rows with their styles (x/vt's own rendering:
// SGR and hyperlinks, no cursor moves), as many as the screen has, and the
// cursor.
func (s *vtScreen) Styled() ([]string, Cursor) {
	h := s.em.Height()
	rows := strings.SplitN(s.em.Render(), "\n", h)
	for len(rows) < h {
		rows = append(rows, "")
	}
	pos := s.em.CursorPosition()
	return rows, Cursor{X: pos.X, Y: pos.Y, Hidden: s.hidden}
}

// Render returns what redraws the agent's screen right now on a terminal of
// the same size, and whether the program is on the alternate screen
// (ModeScreen); "" in ModeLines. It is what a viewer sees first when it
// attaches, before the live output.
func (r *Reader) Render() (draw string, alt bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.scr == nil || r.done {
		return "", false
	}
	return r.scr.Render(), r.scr.AltScreen()
}

// PlainLines turns raw terminal output into the text lines a person would
// have read scrolling by: escape sequences removed, "\r\n" a line end, a
// lone "\r" starting its line over, backspace taking back a character, other
// control characters and invisible ones (IsInvisible) dropped. Invalid
// UTF-8 becomes U+FFFD.
func PlainLines(raw []byte) []string {
	var f escFilter
	var text []byte // with stripAll the filter hands its text to the callback
	f.filter(nil, raw, true, func(seg []byte, _ eraseKind, _ int) { text = append(text, seg...) })
	var lines []string
	var cur []rune
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			lines = append(lines, string(cur))
			cur = cur[:0]
			i++
			continue
		case c == '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
				continue
			}
			cur = cur[:0]
			i++
			continue
		case c == '\b':
			if len(cur) > 0 {
				cur = cur[:len(cur)-1]
			}
			i++
			continue
		case c == '\t':
			cur = append(cur, ' ')
			i++
			continue
		case c < 0x20 || c == 0x7f:
			i++
			continue
		}
		r, n := utf8.DecodeRune(text[i:])
		if !IsInvisible(r) {
			cur = append(cur, r)
		}
		i += n
	}
	if len(cur) > 0 {
		lines = append(lines, string(cur))
	}
	return lines
}
