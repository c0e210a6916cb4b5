//go:build !e2e

package profile

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
)

// waiterScreen is a screen that another channel may say waits on a dialog.
type waiterScreen struct {
	staticScreen
	waiting bool
}

func (s waiterScreen) Waiting() bool { return s.waiting }

// firstThen is a screen that shows first once, then next from then on.
func firstThen(first, next Screen) func() Screen {
	var calls atomic.Int32
	return func() Screen {
		if calls.Add(1) == 1 {
			return first
		}
		return next
	}
}

// A dialog that comes up while the text is typed — the turn before it was
// at work, as in the measured Gemini run where a request typed right after
// the first prompt met the approval dialog — never gets the Enter: Submit
// stops with ErrDialogTyped, and Resubmit, once the dialog is gone, presses
// Enter for the text still in the box.
func TestSubmitNeverPressesEnterIntoADialog(t *testing.T) {
	rec := loadRecording(t, "gemini", "dialog-200x50")
	ready := rec.screenAt(t, rec.Typed[0].Offset) // the prompt, empty box
	dialog := rec.screenAt(t, sidecarDialogOffset(t, "gemini", "dialog-200x50"))
	p := mustProfile(t, "gemini")
	p.EnterDelay, p.SubmitWindow = 10*time.Millisecond, 20*time.Millisecond
	var w bytes.Buffer
	// ready when typed, the dialog from then on
	err := p.Submit(context.Background(), &w, firstThen(ready, dialog), "CHECKPOINT REQUEST: T1")
	if !errors.Is(err, ErrDialogTyped) || strings.Contains(w.String(), "\r") {
		t.Fatalf("Submit = %v, wrote %q; want ErrDialogTyped and no Enter", err, w.String())
	}
	// Only another channel says so (an OSC 7501 report): no Enter either.
	w.Reset()
	err = p.Submit(context.Background(), &w, func() Screen { return waiterScreen{ready, true} }, "CHECKPOINT REQUEST: T1")
	if !errors.Is(err, ErrDialog) || w.Len() != 0 {
		t.Fatalf("Submit while waiting = %v, wrote %q", err, w.String())
	}
}

// Resubmit after a dialog: a box that holds the text gets Enter only; an
// empty box gets the text again; any other text is a draft.
func TestResubmitAfterADialog(t *testing.T) {
	rec := loadRecording(t, "claude", "checkpoint-200x50")
	typed := rec.screenAt(t, rec.Typed[1].Offset) // the preamble in the box, before Enter
	p := mustProfile(t, "claude")
	p.EnterDelay, p.SubmitWindow, p.EnterTries = 10*time.Millisecond, 20*time.Millisecond, 1
	var w bytes.Buffer
	box := draftLine(p.tui.view(typed.rows).text)
	err := p.Resubmit(context.Background(), &w, func() Screen { return typed }, box)
	if w.String() != "\r" || !errors.Is(err, ErrNotSubmitted) {
		t.Fatalf("Resubmit of the text in the box wrote %q (%v), want Enter alone", w.String(), err)
	}
	w.Reset()
	if err := p.Resubmit(context.Background(), &w, func() Screen { return typed }, "something else"); !errors.Is(err, ErrDraft) || w.Len() != 0 {
		t.Fatalf("Resubmit over a draft = %v, wrote %q", err, w.String())
	}
}

// A CLI slow to draw: the typed text never shows in the box and no turn
// shows after Enter. Enter is pressed once, not again on the empty box —
// the first one may still start the turn, and a second would land in what
// the turn draws next: the approval dialog of a tool call, Yes preselected.
// (Measured on a loaded machine with the real Gemini CLI: the repeated
// Enter approved its shell command.)
func TestEnterIsNotRepeatedOnAnEmptyBox(t *testing.T) {
	for _, cli := range []string{"claude", "codex", "gemini"} {
		rec := loadRecording(t, cli, "checkpoint-200x50")
		idle := rec.screenAt(t, rec.Typed[0].Offset) // the empty box, before anything was typed
		p := mustProfile(t, cli)
		p.EnterDelay, p.SubmitWindow = 10*time.Millisecond, 20*time.Millisecond
		p.Clock = steppingClock{clock.NewFake(time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC))} // Gemini's 30 s watch for its queue, at once
		if !p.InputEmpty(idle) {
			t.Fatalf("%s: the screen before typing does not show an empty box", cli)
		}
		var w bytes.Buffer
		err := p.Submit(context.Background(), &w, func() Screen { return idle }, "CHECKPOINT REQUEST: T1")
		if !errors.Is(err, ErrNotSubmitted) || strings.Count(w.String(), "\r") != 1 {
			t.Errorf("%s: Submit = %v, wrote %q; want ErrNotSubmitted and Enter once", cli, err, w.String())
		}
	}
}

// A turn the text did not start is at work when Enter is due (measured with
// the real Gemini CLI: its first prompt's turn began ~450 ms after warden
// typed a request, and the approval dialog that turn raised was drawn just as
// the Enter went out — which approved the shell command). Enter is not
// pressed while the CLI is busy: Submit stops with ErrBusyTyped, the text
// stays in the box, and Resubmit presses Enter once the turn is over.
func TestEnterWaitsWhileATurnIsAtWork(t *testing.T) {
	rec := loadRecording(t, "gemini", "dialog-200x50")
	ready := rec.screenAt(t, rec.Typed[0].Offset) // the prompt, empty box
	typed := rec.screenAt(t, rec.Typed[1].Offset) // the text in the box, before Enter
	busy := staticScreen{rows: slices.Clone(typed.rows), bracketed: typed.bracketed}
	for i, r := range busy.rows { // a spinner row above the input frame, as Gemini draws it
		if strings.HasPrefix(r, "▄▄▄") {
			busy.rows[i-1] = "⠸ Thinking... (esc to cancel, 0s)"
			break
		}
	}
	p := mustProfile(t, "gemini")
	if !p.Busy(busy) || p.Busy(typed) {
		t.Fatalf("the made-up screen: busy %v, the recorded one busy %v", p.Busy(busy), p.Busy(typed))
	}
	p.EnterDelay, p.SubmitWindow = 10*time.Millisecond, 20*time.Millisecond
	var w bytes.Buffer
	// ready when typed, then the text in the box and a turn at work
	err := p.Submit(context.Background(), &w, firstThen(ready, busy), "CHECKPOINT REQUEST: T1")
	if !errors.Is(err, ErrBusyTyped) || strings.Contains(w.String(), "\r") {
		t.Fatalf("Submit = %v, wrote %q; want ErrBusyTyped and no Enter", err, w.String())
	}
	// The turn is over, the text still in the box: Enter alone (once: the
	// recorded screen never shows the turn start).
	w.Reset()
	p.EnterTries = 1
	box := draftLine(p.tui.view(typed.rows).text)
	_ = p.Resubmit(context.Background(), &w, func() Screen { return typed }, box)
	if w.String() != "\r" {
		t.Fatalf("Resubmit after the turn wrote %q, want Enter alone", w.String())
	}
}
