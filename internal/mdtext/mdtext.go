// Package mdtext writes text from outside warden — an agent's checkpoint,
// a CLI's dialog, a team file's title — into the Markdown warden writes
// (STATUS.md, report.md, handoff.md) so that a renderer shows it as it
// was written and makes nothing of it (issue 33): no HTML element or
// entity, no link, image or autolink, no code span, no table cell, no
// emphasis, no heading, quote or list. It stays readable as text: each
// such character is backslash-escaped (CommonMark's escape for any ASCII
// punctuation), nothing else changes.
package mdtext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wardenhq/warden/protocol"
)

// acts holds the characters escaped wherever they are: the backslash
// itself, a code span's backtick, emphasis and strikethrough, a link's or
// an image's brackets (and the bang), HTML's angle brackets and an
// entity's ampersand, a table's pipe, a heading's hash.
const acts = "\\`*~[]!<>&|#"

// Escape is s on one line (protocol.Plain: no control or invisible
// character) with what Markdown acts on escaped: every character of acts;
// an underscore that could open or close emphasis (one between two
// letters or digits cannot: snake_case stays as it is); and, at its
// start, what would begin a list, a heading's underline or a rule ("-",
// "+", "=", "1." — its mark escaped).
func Escape(s string) string {
	s = protocol.Plain(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	prev := rune(-1)
	for i, r := range s {
		switch {
		case strings.ContainsRune(acts, r):
			b.WriteByte('\\')
		case r == '_':
			next, _ := utf8.DecodeRuneInString(s[i+1:])
			if !(word(prev) && word(next)) {
				b.WriteByte('\\')
			}
		case prev < 0 && (r == '-' || r == '+' || r == '='):
			b.WriteByte('\\')
		case (r == '.' || r == ')') && allDigits(s[:i]) && i > 0:
			b.WriteByte('\\') // "1." or "1)" at the start: an ordered list
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// Cell is Escape for a table cell: "-" when s is empty.
func Cell(s string) string {
	if e := Escape(s); e != "" {
		return e
	}
	return "-"
}

func word(r rune) bool { return r >= 0 && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Dangling reports whether line ends in an escape cut in two — an odd run
// of backslashes, whose last escapes the first character of the next line:
// a wrapper moves that backslash down with it.
func Dangling(line string) bool {
	n := len(line) - len(strings.TrimRight(line, "\\"))
	return n%2 == 1
}
