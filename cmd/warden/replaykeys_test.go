//go:build !e2e

package main

import (
	"testing"
	"time"
)

// The terminal's answers, and every other escape sequence, are no keys;
// what a person types is, also right after an answer, around one that
// comes in pieces, and after a lone Esc.
func TestKeyFilterPassesOnlyTypedKeys(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		reads []string // one read each, 10 ms apart unless a gap is said
		gap   time.Duration
		want  string
	}{
		{"tmux's XTVERSION", []string{"\x1bP>|tmux 3.4\x1b\\"}, 0, ""},
		{"DECRQSS of the cursor style", []string{"\x1bP1$r2 q\x1b\\"}, 0, ""},
		{"DA1, DA2 and a CPR", []string{"\x1b[?1;2c\x1b[>84;0;0c\x1b[5;1R"}, 0, ""},
		{"an OSC colour answer, BEL-ended", []string{"\x1b]11;rgb:0000/0000/0000\x07 "}, 0, " "},
		{"an OSC colour answer, ST-ended", []string{"\x1b]10;rgb:ffff/ffff/ffff\x1b\\q"}, 0, "q"},
		{"DECRPM and kitty flags", []string{"\x1b[?2026;2$y\x1b[?0u"}, 0, ""},
		{"an X10 mouse report", []string{"\x1b[M q!x"}, 0, "x"}, // button 0 is a space
		{"an SGR mouse report and focus", []string{"\x1b[<0;12;5M\x1b[<0;12;5m\x1b[I\x1b[O"}, 0, ""},
		{"arrow keys, normal and application", []string{"\x1b[A\x1bOB"}, 0, ""},
		{"an answer in pieces", []string{"\x1bP>|tm", "ux 3", ".4\x1b", "\\", " "}, 0, " "},
		{"keys around an answer", []string{" \x1b[?1;2c q"}, 0, "  q"},
		{"Ctrl-C inside a CSI", []string{"\x1b[1;\x035R"}, 0, "\x03"},
		{"a lone Esc, then space", []string{"\x1b", " "}, 200 * time.Millisecond, " "},
		{"an unfinished string, then q", []string{"\x1b]11;rgb:00", "q"}, 200 * time.Millisecond, "q"},
		{"an ESC that is no ST ends a string", []string{"\x1b]11;?\x1b[A "}, 0, " "},
	} {
		var f keyFilter
		var got []byte
		at := t0
		for _, r := range c.reads {
			got = append(got, f.keys([]byte(r), at)...)
			at = at.Add(max(c.gap, 10*time.Millisecond))
		}
		if string(got) != c.want {
			t.Errorf("%s: keys %q, want %q", c.name, got, c.want)
		}
	}
}
