package session

import (
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol/profile"
)

// A dialog announced by the CLI's status report before the screen shows it
// has an id of its own (every such announcement reads the same): warden ps
// gives that id while the dialog's text is the announcement's — the id
// agent_waiting and the notification gave —, and the screen's text's id
// once the screen shows it; warden answer takes both. The announcement's
// text's own id names no dialog.
func TestDialogIDIsTheAnnouncedOne(t *testing.T) {
	s := &Session{cfg: Config{Clock: clock.NewFake(time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC))}, id: "s1"}
	const said = "the CLI reports it is blocked on the user"
	screen := "Would you like to run the following command?\n$ curl -s http://127.0.0.1:9/probe\n› 1. Yes, proceed (y)\n2. No (esc)"

	id := s.announce(said, false)
	s.dialog.text.Store(said)
	if id == profile.DialogID(said) || s.DialogID(said) != id || !s.isDialog(id) {
		t.Fatalf("announced off the screen: id %q, DialogID %q (the text's %q), taken %v", id, s.DialogID(said), profile.DialogID(said), s.isDialog(id))
	}
	s.dialog.text.Store(screen) // the same dialog, read off the screen
	if got := s.DialogID(screen); got != profile.DialogID(screen) || !s.isDialog(got) || !s.isDialog(id) {
		t.Errorf("once on the screen: DialogID %q, taken %v; the announced id taken %v", got, s.isDialog(got), s.isDialog(id))
	}
	if s.isDialog(profile.DialogID(said)) {
		t.Error("the announcement's text's own id was taken")
	}

	// A dialog read off the screen is named by its text, as before.
	s2 := &Session{cfg: s.cfg, id: "s2"}
	if id := s2.announce(screen, true); id != profile.DialogID(screen) || s2.DialogID(screen) != id {
		t.Errorf("on the screen: id %q, DialogID %q, want %q", id, s2.DialogID(screen), profile.DialogID(screen))
	}
}
