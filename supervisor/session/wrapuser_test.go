package session

import "testing"

// What a terminal answers on its own is not the user's typing; a key is.
func TestTypedKeys(t *testing.T) {
	for in, want := range map[string]bool{
		"h":                              true,
		"hello\r":                        true,
		"\r":                             true,
		"\x03":                           true,
		"\x1b[?62;1;6;22c":               false, // device attributes
		"\x1b[12;1R":                     false, // cursor position
		"\x1b[I\x1b[O":                   false, // focus in, out
		"\x1b[M #!":                      false, // X10 mouse report
		"\x1b]11;rgb:0000/0000/0000\x07": false,
		"\x1bP>|tmux 3.4\x1b\\":          false, // XTVERSION
		"\x1b[A":                         false, // an arrow key: no work
		"\x1b[?62;1cq":                   true,
		"\x1b":                           false,
	} {
		if got := typedKeys([]byte(in)); got != want {
			t.Errorf("typedKeys(%q) = %v, want %v", in, got, want)
		}
	}
}
