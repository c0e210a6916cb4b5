//go:build !e2e

package protocol

import (
	"strings"
	"testing"
)

// TestCutSidebar: OpenCode's sidebar (the last 42 columns of a screen wider
// than 120) never joins a block's line, and nothing else is cut.
func TestCutSidebar(t *testing.T) {
	pad := func(s string, col int) string { return s + strings.Repeat(" ", col-len(s)) }
	cases := []struct{ row, want string }{
		{pad("     CHECKPOINT: T060", 160) + "LSPs are disabled", "     CHECKPOINT: T060"},
		{pad("", 160) + "Context", ""},
		{pad("     Status: implementing", 150) + "not in the sidebar", pad("     Status: implementing", 150) + "not in the sidebar"},
		{"     Resume: a  b  c", "     Resume: a  b  c"},
		{strings.Repeat("word ", 40), strings.Repeat("word ", 40)},
	}
	for _, c := range cases {
		if got := cutSidebar(c.row, 200); got != c.want {
			t.Errorf("cutSidebar(%q) = %q, want %q", c.row, got, c.want)
		}
	}
	row := pad("CHECKPOINT: T060", 70) + "right"
	if got := cutSidebar(row, 80); got != row {
		t.Errorf("an 80-column screen has no sidebar: %q", got)
	}
}

// TestHyphenBreakJoins: a value a CLI wrapped after a hyphen joins without
// a space, and its echo is still the typed text.
func TestHyphenBreakJoins(t *testing.T) {
	if got := joinSpace("run scripts/convert.sh --", "check on every file"); got != "run scripts/convert.sh --check on every file" {
		t.Errorf("joinSpace = %q", got)
	}
	if got := joinSpace("a list -", "b"); got != "a list - b" {
		t.Errorf("a lone dash is a word: %q", got)
	}
	typed := canonicalWords([]string{"Status: implementing|testing|awaiting-verification|blocked"}, false)
	echo := canonicalWords([]string{"Status: implementing|testing|awaiting-", "verification|blocked"}, false)
	if typed != echo {
		t.Errorf("echo %q != typed %q", echo, typed)
	}
}
