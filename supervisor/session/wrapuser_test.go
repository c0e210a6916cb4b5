//go:build !e2e

package session

import (
	"testing"
	"time"
)

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

// Under warden wrap a request due after the user's work but put off (the
// screen showed no turn boundary yet: a slow turn's quiet moment) is still
// due after turnQuiet, without another keystroke: the user's work wants its
// checkpoint. Once typed, no other follows until the user works again.
func TestUserRequestPutOffIsStillDue(t *testing.T) {
	t0 := time.Unix(1000, 0)
	m := testMonitor(t0)
	m.interval, m.nextRequest, m.userDriven = 2*time.Second, t0.Add(2*time.Second), true
	m.userAt = t0.Add(time.Second)
	out := t0.Add(5 * time.Second) // the turn's last output so far
	now := out.Add(time.Second)
	if act, _ := m.next(now, out); act != actRequest {
		t.Fatalf("no request after the user's work: %v", act)
	}
	m.notYet(now) // the screen still drew the turn
	act, wake := m.next(now, out)
	if act != actNone || wake.IsZero() {
		t.Fatalf("a put-off request waits for the next keystroke: %v, wake %v", act, wake)
	}
	if act, _ := m.next(wake, out); act != actRequest {
		t.Fatalf("the put-off request never came again: %v", act)
	}
	m.checkpoint(wake.Add(time.Second), false)
	if act, wake := m.next(wake.Add(time.Minute), out); act != actNone || !wake.IsZero() {
		t.Fatalf("asked again with the user away: %v, wake %v", act, wake)
	}
}
