//go:build !e2e

package profile

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
)

// redrawAfter replays a recording from offset in small steps and returns the
// first screen that shows neither the input box nor a dialog (a TUI
// between two frames), and the next one that shows the box again.
func redrawAfter(t *testing.T, p *Profile, rec *recording, offset int) (between, box staticScreen) {
	t.Helper()
	rp := rec.replay(t)
	rp.to(offset)
	found := false
	for off := offset; off <= len(rec.raw); off += 64 {
		s := rp.to(off)
		v := p.tui.view(s.rows)
		switch {
		case !found && !v.hasBox && !v.dialog():
			between, found = s, true
		case found && v.hasBox && v.inputEmpty():
			return between, s
		}
	}
	t.Fatalf("%s: no frame without box and dialog after offset %d, then an empty box", rec.CLI, offset)
	return
}

// OpenCode draws its permission dialog in place of the input box and the
// box again after Esc, over several frames: for a moment the screen shows
// neither (measured under warden with the real OpenCode: Resubmit took
// that moment for a draft and dropped the checkpoint request it was
// finishing, which then stayed unsent in the box). Resubmit waits for the
// box or a dialog; a screen that never shows either gets no key; the box
// back and empty gets the text again.
func TestResubmitWaitsThroughARedraw(t *testing.T) {
	rec := loadRecording(t, "opencode", "dialog-200x50")
	p := mustProfile(t, "opencode")
	between, box := redrawAfter(t, p, rec, sidecarDialogOffset(t, "opencode", "dialog-200x50"))
	p.EnterDelay, p.SubmitWindow, p.EnterTries = 10*time.Millisecond, 100*time.Millisecond, 1
	p.Clock = steppingClock{clock.NewFake(time.Date(2026, 12, 7, 7, 0, 0, 0, time.UTC))} // its windows in looks, not in wall time under load
	var w bytes.Buffer
	err := p.Resubmit(context.Background(), &w, func() Screen { return between }, "CHECKPOINT REQUEST: T1")
	if !errors.Is(err, ErrDialogTyped) || w.Len() != 0 {
		t.Fatalf("Resubmit on a screen between frames = %v, wrote %q; want ErrDialogTyped and nothing", err, w.String())
	}
	w.Reset()
	_ = p.Resubmit(context.Background(), &w, firstThen(between, box), "CHECKPOINT REQUEST: T1")
	if !strings.HasPrefix(w.String(), pasteStart+"CHECKPOINT REQUEST: T1") {
		t.Fatalf("Resubmit once the empty box is back wrote %q, want the text typed again", w.String())
	}
}

// OpenCode shows a paste of 3 lines or more than 150 characters as "[Pasted
// ~N lines]" in its box (measured: warden's request typed before a dialog
// sat there as "[Pasted ~1 lines]" once the dialog was denied, and
// Resubmit took it for a person's draft). Resubmit knows that summary for
// the text it typed: Enter alone; another paste's summary is a draft.
func TestResubmitKnowsOpenCodesPasteSummary(t *testing.T) {
	rec := loadRecording(t, "opencode", "dialog-200x50")
	pasted := rec.screenAt(t, rec.Typed[1].Offset) // the preamble pasted, before its Enter
	text := strings.TrimSuffix(strings.TrimPrefix(rec.Typed[0].Text, pasteStart), pasteEnd)
	p := mustProfile(t, "opencode")
	if got := p.tui.view(pasted.rows).text; got != "[Pasted ~1 lines]" {
		t.Fatalf("the box before Enter holds %q, want OpenCode's paste summary", got)
	}
	p.EnterDelay, p.SubmitWindow, p.EnterTries = 10*time.Millisecond, 20*time.Millisecond, 1
	p.Clock = steppingClock{clock.NewFake(time.Date(2026, 12, 7, 7, 0, 0, 0, time.UTC))} // its windows in looks, not in wall time under load
	var w bytes.Buffer
	_ = p.Resubmit(context.Background(), &w, func() Screen { return pasted }, text)
	if w.String() != "\r" {
		t.Fatalf("Resubmit of the pasted text wrote %q, want Enter alone", w.String())
	}
	w.Reset()
	other := "line one\nline two\nline three"
	if err := p.Resubmit(context.Background(), &w, func() Screen { return pasted }, other); !errors.Is(err, ErrDraft) || w.Len() != 0 {
		t.Fatalf("Resubmit of another text over the summary = %v, wrote %q; want ErrDraft", err, w.String())
	}
}

// OpenCode empties its box at Enter and may take a second to show the
// message it took; an Enter pressed for the next text meanwhile was lost
// (measured under warden on a loaded machine). So an emptied box alone
// does not tell Submit that OpenCode's turn started: a screen that only
// shows the box empty again is no turn, and Enter is not pressed twice.
func TestOpenCodesEmptiedBoxIsNoTurnYet(t *testing.T) {
	rec := loadRecording(t, "opencode", "dialog-200x50")
	ready := rec.screenAt(t, rec.Typed[0].Offset)  // the empty box
	pasted := rec.screenAt(t, rec.Typed[1].Offset) // the paste, before its Enter
	p := mustProfile(t, "opencode")
	p.EnterDelay, p.SubmitWindow, p.EnterTries = 10*time.Millisecond, 50*time.Millisecond, 3
	p.Clock = steppingClock{clock.NewFake(time.Date(2026, 12, 7, 7, 0, 0, 0, time.UTC))} // its windows in looks, not in wall time under load
	var w bytes.Buffer
	screen := func() Screen {
		switch {
		case strings.Contains(w.String(), "\r"):
			return ready // Enter pressed: the box emptied, nothing else drawn yet
		case w.Len() > 0:
			return pasted
		}
		return ready
	}
	err := p.Submit(context.Background(), &w, screen, rec.Typed[0].Text[len(pasteStart):len(rec.Typed[0].Text)-len(pasteEnd)])
	if !errors.Is(err, ErrNotSubmitted) || strings.Count(w.String(), "\r") != 1 {
		t.Fatalf("Submit = %v, wrote %q; want ErrNotSubmitted and Enter once", err, w.String())
	}
}

// After Enter, OpenCode blanks its screen while it opens the session view —
// for seconds on a loaded machine (measured: the whole suite beside it, a
// blank screen 5 s after Enter, and Submit gave up "no input box"); or it
// empties its box and draws the turn late. Submit waits for what comes next
// without another key: the turn at work is a submission; a screen that
// stays blank is still none, Enter pressed once.
func TestSubmitWaitsThroughABlankScreenAfterEnter(t *testing.T) {
	rec := loadRecording(t, "opencode", "dialog-200x50")
	ready := rec.screenAt(t, rec.Typed[0].Offset)  // the empty box
	pasted := rec.screenAt(t, rec.Typed[1].Offset) // the paste, before its Enter
	p := mustProfile(t, "opencode")
	var busy Screen
	rp := rec.replay(t)
	for off := rec.Typed[1].Offset; off <= len(rec.raw) && busy == nil; off += 64 {
		if s := rp.to(off); p.tui.view(s.rows).busy() {
			busy = s
		}
	}
	if busy == nil {
		t.Fatal("no busy frame after the paste's Enter in the recording")
	}
	blank := staticScreen{rows: make([]string, 50)}
	text := rec.Typed[0].Text[len(pasteStart) : len(rec.Typed[0].Text)-len(pasteEnd)]
	for _, c := range []struct {
		name           string
		between, after Screen // what shows after Enter for a while, and then
		ok             bool
	}{
		{"blank, then busy", blank, busy, true},
		{"blank for good", blank, blank, false},
		// The box emptied at Enter, the turn drawn late: OpenCode's busy
		// row alone proves a turn.
		{"emptied box, then busy", ready, busy, true},
	} {
		p.EnterDelay, p.SubmitWindow, p.EnterTries, p.Poll = 10*time.Millisecond, 50*time.Millisecond, 3, 5*time.Millisecond
		p.Clock = steppingClock{clock.NewFake(time.Date(2026, 12, 7, 7, 0, 0, 0, time.UTC))} // its windows in looks, not in wall time under load
		var w bytes.Buffer
		polls := 0
		screen := func() Screen {
			switch {
			case w.Len() == 0:
				return ready
			case !strings.Contains(w.String(), "\r"):
				return pasted
			case polls < 20: // past SubmitWindow (10 polls)
				polls++
				return c.between
			}
			return c.after
		}
		err := p.Submit(context.Background(), &w, screen, text)
		if (err == nil) != c.ok || strings.Count(w.String(), "\r") != 1 {
			t.Errorf("%s: Submit = %v, wrote Enter %d times; want ok=%v and Enter once", c.name, err, strings.Count(w.String(), "\r"), c.ok)
		}
	}
}

// OpenCode counts the lines of a paste after trimming it (1.18.33's prompt
// code: text.trim(), its newlines plus one; more than 150 UTF-16 units also
// summarize it), so a text that ends with a newline, as warden's first
// prompt does, shows one line fewer than its newlines plus one. Counted
// untrimmed, the box's "[Pasted ~17 lines]" never read as holding the
// text: beside a CPU burner on both cores OpenCode lost the first prompt's
// Enter, warden did not press it again, and the agent sat with its prompt
// in the box until stale_failure restarted it, each time
// (scripts/dialogs-under-load.sh, TestRealCLIDialogDenied/each/opencode).
func TestOpenCodePasteSummaryCountsTheTrimmedText(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"one\ntwo\nthree\n", "[Pasted ~3 lines]"},
		{"\n\none\ntwo\nthree\n\n", "[Pasted ~3 lines]"},
		{"one\ntwo\n", ""},
		{"\n\none\n\n", ""},
		{strings.Repeat("é", 151), "[Pasted ~1 lines]"},
		{"  " + strings.Repeat("x", 150) + "\n", ""},
	} {
		if got := opencodePasted(c.text); got != c.want {
			t.Errorf("opencodePasted(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
