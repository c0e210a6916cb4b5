package protocol

import "strings"

// IsControl reports whether r is a control character: C0 (tab and newline
// included), DEL, or C1 (U+0080–U+009F; U+009B is a CSI and U+009D an OSC
// to many terminals).
func IsControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f)
}

// Plain is s on one line with no control character: each becomes a space
// (and invalid UTF-8 becomes U+FFFD). Text an agent or a file wrote goes
// through it before it reaches a JSON record, Markdown or the terminal:
// nothing it holds can start a table row, a heading or an escape sequence.
func Plain(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return strings.Map(func(r rune) rune {
				if IsControl(r) {
					return ' '
				}
				return r
			}, s)
		}
	}
	return s // ASCII without controls: the usual case, no copy
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
