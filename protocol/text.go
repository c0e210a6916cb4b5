package protocol

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// IsControl reports whether r is a control character: C0 (tab and newline
// included), DEL, or C1 (U+0080–U+009F; U+009B is a CSI and U+009D an OSC
// to many terminals).
func IsControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f)
}

// IsInvisible reports whether r changes how text reads without showing
// itself: a Unicode format character (category Cf — the bidirectional
// controls U+202A–U+202E, U+2066–U+2069, U+200E, U+200F and U+061C, which
// reorder what a terminal or an editor shows, as U+202E makes "txt.exe"
// read "exe.txt"; zero-width spaces and joiners U+200B–U+200D, U+2060–U+2064;
// the BOM U+FEFF; the soft hyphen; the tag characters U+E0000–U+E007F, which
// a model reads as text that no person sees), a variation selector
// (U+FE00–U+FE0F, U+E0100–U+E01EF: invisible, they can carry hidden
// bytes), or a Hangul filler (U+115F, U+1160, U+3164, U+FFA0: letters that
// show as nothing).
func IsInvisible(r rune) bool {
	switch {
	case r < 0xad:
		return false
	case r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef:
		return true
	case r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// isBreak reports whether r breaks a line without being a control: the
// line and paragraph separators U+2028 and U+2029.
func isBreak(r rune) bool { return r == 0x2028 || r == 0x2029 }

// Plain is s on one line with no control character and nothing invisible:
// each control character and line separator becomes a space, each
// invisible character (IsInvisible) is removed, and invalid UTF-8 becomes
// U+FFFD. Text an agent or a file wrote goes through it before it reaches a
// JSON record, Markdown or the terminal: nothing it holds can start a table
// row, a heading or an escape sequence, or make the text read otherwise
// than it is.
func Plain(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return strings.Map(func(r rune) rune {
				switch {
				case IsControl(r), isBreak(r):
					return ' '
				case IsInvisible(r):
					return -1
				}
				return r
			}, s)
		}
	}
	return s // ASCII without controls: the usual case, no copy
}

// Visible is s without its invisible characters (IsInvisible), everything
// else kept (line breaks too): for text that keeps its lines, such as a
// dialog's, once its control characters are gone.
func Visible(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return strings.Map(func(r rune) rune {
				if IsInvisible(r) {
					return -1
				}
				return r
			}, s)
		}
	}
	return s
}

// FirstLine is s's first line once the blank around it is trimmed: what a
// log line, a WARNING or an error quotes of a dialog, a question or a
// message of several lines.
func FirstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// PlainJSON writes, in JSON text, what encoding/json leaves raw but a
// terminal or an editor acts on — DEL, the C1 controls (U+0080–U+009F),
// the line separators and the invisible characters (IsInvisible) — as \u
// escapes, which mean the same inside a JSON string (the only place they
// can be). The C0 controls encoding/json escapes itself.
func PlainJSON(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < 0x7f {
		i++
	}
	if i == len(b) {
		return b // ASCII without DEL: no copy
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for b = b[i:]; len(b) > 0; {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == 0x7f, r >= 0x80 && r <= 0x9f, isBreak(r), IsInvisible(r):
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		default:
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

// plainList applies Plain to every item of a list.
func plainList(items []string) []string {
	if items == nil {
		return nil
	}
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = Plain(it)
	}
	return out
}
