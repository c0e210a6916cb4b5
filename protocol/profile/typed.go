package profile

import "strings"

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// Sanitize removes what must never reach an agent from typed text: every
// control character except "\n" and "\t" (so no escape sequence, and no
// end-of-paste marker, can be smuggled in), with "\r\n" and "\r" turned
// into "\n".
func Sanitize(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
			return -1
		}
		return r
	}, text)
}

// payload is what Submit writes before Enter: the text bracketed when the
// app enabled bracketed paste; otherwise on one line (a bare LF may submit
// early, a tab may complete) .
func payload(text string, bracketed bool) string {
	if bracketed {
		return pasteStart + text + pasteEnd
	}
	text = strings.ReplaceAll(text, "\t", "    ")
	return strings.ReplaceAll(text, "\n", " ")
}
