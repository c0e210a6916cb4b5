//go:build !e2e

package session

import (
	"bytes"
	"testing"
)

// The first prompt counts as had once the write that ends with its Enter
// went through: the paste alone (no Enter) does not, and a second Enter
// (a retry) tells nothing more.
func TestThePromptIsHadOnceItsEnterIsPressed(t *testing.T) {
	var typed bytes.Buffer
	n := 0
	w := &enterWatch{w: &typed, pressed: func() { n++ }}
	w.Write([]byte("\x1b[200~task: T1. Whenever you receive a line\x1b[201~"))
	if n != 0 {
		t.Fatal("the paste, without its Enter, counted as the prompt had")
	}
	w.Write([]byte("\r"))
	w.Write([]byte("\r"))
	if n != 1 {
		t.Fatalf("pressed told %d times after two Enters, want once", n)
	}
	plain := &enterWatch{w: &typed, pressed: func() { n++ }}
	plain.Write([]byte("task: T1.\n"))
	if n != 2 {
		t.Fatal("a plain agent's prompt line did not count as had")
	}
}
