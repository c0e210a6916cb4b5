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

// Qwen Code draws its confirmation's question a moment before its choices
// (measured in TestRealCLIAnswer/qwen-default: a person's allow-once 0.3 s
// after agent_waiting found no choice to pick). A permission dialog counts
// once its choices are drawn — or, for a CLI that never draws any,
// dialogChoicesWait after its question was first read.
func TestAPermissionDialogCountsOnceItsChoicesAreDrawn(t *testing.T) {
	fc := clock.NewFake(time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC))
	s := &Session{cfg: Config{Clock: fc}, id: "s1"}
	question := "? Shell curl -s http://127.0.0.1:9/second > second.txt (Fetch the second probe) ←\nAllow execution of: 'curl'?"
	bare := profile.Dialog{Kind: profile.DialogPermission, Text: question}
	whole := profile.Dialog{Kind: profile.DialogPermission, Text: question + "\n› 1. Yes, allow once\n  2. No, suggest changes (esc)"}
	if s.secondRead(bare) {
		t.Fatal("a permission dialog with no choice drawn yet counted")
	}
	fc.Advance(dialogRecheck)
	if s.secondRead(bare) {
		t.Fatal("its question read again, still without choices, counted")
	}
	if !s.secondRead(whole) {
		t.Fatal("the dialog with its choices drawn did not count at once")
	}

	// A dialog that never draws a choice is announced all the same.
	s2 := &Session{cfg: Config{Clock: fc}, id: "s2"}
	if s2.secondRead(bare) {
		t.Fatal("counted at its first read")
	}
	fc.Advance(dialogChoicesWait - time.Millisecond)
	if s2.secondRead(bare) {
		t.Fatal("counted before dialogChoicesWait")
	}
	fc.Advance(time.Millisecond)
	if !s2.secondRead(bare) {
		t.Fatal("a dialog without choices never counted")
	}
}
