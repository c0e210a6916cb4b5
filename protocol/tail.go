package protocol

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tail returns up to n of the last non-empty lines the agent showed, as a
// person would read them: a TUI's screen (the emulator's rows, kept when the
// Reader closes), a plain program's last lines. Control characters are
// removed, each line is cut to maxTailLine characters, and lines that are
// the echo of what warden typed are left out. It works after Flush and
// Close: this is what an agent that exited said last (a CLI that refuses
// its configuration says why on its screen and nowhere else). A TUI whose
// screen shows nothing now, having left its alternate screen (as one does
// when it ends), is read as it was when it left it.
func (r *Reader) Tail(n int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var rows []string
	switch {
	case r.scr != nil && !r.done:
		rows = joinRows(r.scr.Rows(), nil)
	case r.scr != nil:
		rows = r.tail.screen
	default:
		rows = r.tail.lastLines()
		if len(r.cur) > 0 { // a last line without its newline
			rows = append(rows, string(r.cur))
		}
	}
	out := r.tailOf(rows, n)
	if len(out) == 0 && r.scr != nil {
		out = r.tailOf(r.tail.left, n)
	}
	return out
}

// tailOf is up to n of the last lines of rows that Tail shows (r.mu held).
func (r *Reader) tailOf(rows []string, n int) []string {
	var out []string
	for i := len(rows) - 1; i >= 0 && len(out) < n; i-- {
		l := plainTailLine(rows[i])
		if l == "" || r.tail.echo(l) { // whole: a cut line is no longer a piece of the text
			continue
		}
		out = append(out, cutTailLine(l))
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

const (
	maxTailLine  = 200      // characters kept of one line
	keepLines    = 16       // a plain program's last lines kept
	keepSlotCap  = 4 << 10  // a slot's buffer kept for reuse up to this size
	keepTypedLen = 64 << 10 // bytes of typed text kept to recognise its echo
)

// tailKeeper keeps what Tail needs: a plain program's last lines, a TUI's
// last screen, and what warden typed (whose echo is not the agent's word).
// A plain program's lines are kept whole (Tail's echo test needs the whole
// line), as bytes in a ring of buffers that are reused: every line passes
// through here, so keeping one costs a copy, no allocation. A buffer grown
// past keepSlotCap by a long line is not kept for a short one.
type tailKeeper struct {
	ring   [keepLines][]byte
	next   int // the ring's slot the next line goes to
	screen []string
	left   []string // a TUI's alternate screen as it was when the program left it
	typed  []string
	lines  map[string]struct{} // the lines of typed, trimmed
	size   int
}

// line records a complete line of a plain program. The tty's echo of a
// line warden typed is not kept: a long typed prompt would push what the
// program said out of the ring.
func (k *tailKeeper) line(b []byte) {
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return
	}
	if _, typed := k.lines[string(t)]; typed {
		return
	}
	slot := k.ring[k.next][:0]
	if cap(slot) > keepSlotCap && len(b) <= keepSlotCap {
		slot = nil
	}
	k.ring[k.next] = append(slot, b...)
	k.next = (k.next + 1) % keepLines
}

// lastLines returns the lines kept, oldest first.
func (k *tailKeeper) lastLines() []string {
	var out []string
	for i := range keepLines {
		if b := k.ring[(k.next+i)%keepLines]; len(b) > 0 {
			out = append(out, string(b))
		}
	}
	return out
}

// typedText records text warden typed; the oldest goes past keepTypedLen.
func (k *tailKeeper) typedText(text string) {
	k.typed = append(k.typed, text)
	k.size += len(text)
	for k.size > keepTypedLen && len(k.typed) > 1 {
		k.size -= len(k.typed[0])
		k.typed = k.typed[1:]
	}
	k.lines = make(map[string]struct{})
	for _, t := range k.typed {
		for _, l := range strings.Split(t, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				k.lines[l] = struct{}{}
			}
		}
	}
}

// echo reports whether line is a piece of what warden typed.
func (k *tailKeeper) echo(line string) bool {
	for _, t := range k.typed {
		if strings.Contains(t, line) {
			return true
		}
	}
	return false
}

// plainTailLine removes control and invisible characters (IsInvisible),
// and blanks and a TUI's frame (box-drawing characters) around the text.
func plainTailLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) || IsInvisible(r) {
			return -1
		}
		return r
	}, s)
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || (r >= 0x2500 && r <= 0x259F) })
}

// cutTailLine cuts s to maxTailLine characters.
func cutTailLine(s string) string {
	if utf8.RuneCountInString(s) > maxTailLine {
		s = string([]rune(s)[:maxTailLine-1]) + "…"
	}
	return s
}
