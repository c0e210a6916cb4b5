package config

import (
	"fmt"

	"github.com/wardenhq/warden/protocol"
)

// controlIn returns the first control character of s.
func controlIn(s string) (rune, bool) {
	for _, r := range s {
		if protocol.IsControl(r) {
			return r, true
		}
	}
	return 0, false
}

// plainText reports a control character in s, the value of the key at
// path (what names it in the message): names and titles are written to
// STATUS.md, handoff.md and the terminal, where a newline forges a table
// row or a heading and an escape sequence drives the user's terminal.
func (d *decoder) plainText(path, what, s string) bool {
	r, bad := controlIn(s)
	if bad {
		d.errorf(path, "%s %s contains a control character (%U): names and titles must be plain text on one line",
			what, fmt.Sprintf("%q", s), r)
	}
	return !bad
}
