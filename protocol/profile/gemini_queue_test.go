//go:build !e2e

package profile

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
)

// Gemini CLI queues what is sent before it has initialized ("Initializing...
// Prompts will be queued.") and draws the queue above its input box, as
// 0.61.0's QueuedMessageDisplay does. Measured under load: warden took that
// screen (the box empty, no spinner) for a turn boundary and typed its
// checkpoint request, which never reached the box. With the queue drawn, a
// turn is due: no turn boundary, and a prompt that went into the queue was
// submitted (Enter once, no error).
func TestGeminiQueuedPromptIsATurnDue(t *testing.T) {
	rec := loadRecording(t, "gemini", "checkpoint-200x50")
	ready := rec.screenAt(t, rec.Typed[0].Offset)
	p := mustProfile(t, "gemini")
	if !p.TurnEnded(ready) {
		t.Fatalf("the recording's ready screen is no turn boundary:\n%s", ready)
	}
	// The queue goes above the box's top frame (the row of ▄).
	top := slices.IndexFunc(ready.rows, func(r string) bool { return strings.HasPrefix(strings.TrimSpace(r), "▄▄▄") })
	if top < 2 {
		t.Fatalf("no input box frame on the ready screen:\n%s", ready)
	}
	queued := staticScreen{bracketed: ready.bracketed, rows: slices.Concat(ready.rows[2:top],
		[]string{"  Queued (press ↑ to edit):", "    Say ready."}, ready.rows[top:])}
	if p.TurnEnded(queued) {
		t.Errorf("a screen with Gemini's queue drawn is a turn boundary:\n%s", queued)
	}

	text := "Say ready."
	p.EnterDelay, p.SubmitWindow, p.EnterTries, p.Poll = 10*time.Millisecond, 50*time.Millisecond, 3, 5*time.Millisecond
	var w bytes.Buffer
	screen := typedThen(&w, ready, boxShowing(ready, text), queued)
	if err := p.Submit(context.Background(), &w, screen, text); err != nil || strings.Count(w.String(), "\r") != 1 {
		t.Errorf("Submit into Gemini's queue = %v, Enter %d times; want nil and once", err, strings.Count(w.String(), "\r"))
	}
}

// A paste dropped without a trace by a CLI that has no queue: never in the
// box, the box empty after Enter, no turn. Once three more windows pass
// without a turn, the text is typed once more, and Enter pressed because
// it shows in the box this time. (Gemini's screen, its queue rule taken
// away: Gemini itself is never typed into twice, below.)
func TestDroppedPasteIsTypedOnceMore(t *testing.T) {
	ready, p := geminiSubmitRig(t)
	noQueue := *p.tui
	noQueue.queued = nil
	p.tui = &noQueue
	text := "CHECKPOINT REQUEST: T1"
	typedRows := slices.Clone(ready.rows)
	for i, r := range typedRows {
		typedRows[i] = strings.Replace(r, "Type your message or @path/to/file", text, 1)
	}
	busyRows := slices.Clone(ready.rows)
	busyRows[len(busyRows)-8] = "⠸ Thinking... (esc to cancel, 0s)"
	var w bytes.Buffer
	screen := func() Screen {
		pastes, enters := strings.Count(w.String(), pasteStart), strings.Count(w.String(), "\r")
		switch {
		case pastes < 2: // the first paste dropped
			return ready
		case enters < 2:
			return staticScreen{rows: typedRows, bracketed: ready.bracketed}
		}
		return staticScreen{rows: busyRows, bracketed: ready.bracketed}
	}
	err := p.Submit(context.Background(), &w, screen, text)
	if err != nil || strings.Count(w.String(), pasteStart) != 2 || strings.Count(w.String(), "\r") != 2 {
		t.Errorf("Submit = %v, wrote %q; want nil, the text twice and Enter after each", err, w.String())
	}
}

// Gemini CLI 0.61.0 still initializing takes a submitted prompt into its
// queue: the paste never shows in the box, the box is empty after Enter, no
// turn runs — and it prints "ℹ Initializing... Prompts will be queued." in
// its transcript (measured under load, the screen of a failing whole run:
// the text typed once more sat in the box as "[Pasted Text: 18 lines]"
// while the queued prompt ran). That notice is the submission: nothing is
// typed again.
func TestGeminiQueuedWhileInitializingIsNotTypedAgain(t *testing.T) {
	ready, p := geminiSubmitRig(t)
	noticed := aboveBox(t, ready, "ℹ Initializing... Prompts will be queued.")
	if !p.TurnEnded(noticed) {
		t.Fatalf("the screen with the notice reads as a turn at work:\n%s", noticed)
	}
	var w bytes.Buffer
	screen := func() Screen {
		if !strings.Contains(w.String(), "\r") {
			return ready // the paste never shows
		}
		return noticed
	}
	err := p.Submit(context.Background(), &w, screen, "Say ready.")
	if err != nil || strings.Count(w.String(), pasteStart) != 1 || strings.Count(w.String(), "\r") != 1 {
		t.Errorf("Submit = %v, wrote %q; want nil, the text once and Enter once", err, w.String())
	}
}

// drawnScreen is a screen with a count of the output read (Drawer).
type drawnScreen struct {
	staticScreen
	drawn uint64
}

func (s drawnScreen) Drawn() uint64 { return s.drawn }

// Gemini CLI initializing on a loaded machine draws nothing at all for
// seconds after a prompt is typed (measured in whole runs: 8 s and more),
// then its queue notice and the turn. A CLI that has drawn nothing since
// the text was typed has not dropped it: Submit waits for its next frame
// and reads that, and types nothing again.
func TestGeminiDrawingNothingAfterAPasteIsWaitedFor(t *testing.T) {
	ready, p := geminiSubmitRig(t)
	noticed := aboveBox(t, ready, "ℹ Initializing... Prompts will be queued.")
	var w bytes.Buffer
	var enter time.Time
	screen := func() Screen {
		if !strings.Contains(w.String(), "\r") {
			return drawnScreen{ready, 100} // nothing drawn since before the paste
		}
		if enter.IsZero() {
			enter = time.Now()
		}
		if time.Since(enter) < 20*p.SubmitWindow {
			return drawnScreen{ready, 100} // still nothing drawn
		}
		return drawnScreen{noticed, 5000}
	}
	err := p.Submit(context.Background(), &w, screen, "Say ready.")
	if err != nil || strings.Count(w.String(), pasteStart) != 1 || strings.Count(w.String(), "\r") != 1 {
		t.Errorf("Submit = %v, wrote %q; want nil, the text once and Enter once", err, w.String())
	}
}

// Gemini CLI busy initializing reads a paste and the Enter after it in one
// go, takes the Enter for part of the paste, and draws the text in its box
// late, unsent — a long text as its summary "[Pasted Text: N lines]"
// (measured in a whole run: the first prompt sat there while warden's
// requests were refused as typed into a draft). Once the box shows the
// text, Enter is pressed again; the text is not typed again.
func TestGeminiTextShownLateIsEnteredAgain(t *testing.T) {
	ready, p := geminiSubmitRig(t)
	text := strings.Repeat("a line of the first prompt\n", 17) + "Say ready."
	held := slices.Clone(ready.rows)
	for i, r := range held {
		held[i] = strings.Replace(r, "Type your message or @path/to/file", "[Pasted Text: 18 lines]", 1)
	}
	busy := slices.Clone(ready.rows)
	busy[len(busy)-8] = "⠸ Thinking... (esc to cancel, 0s)"
	var w bytes.Buffer
	var enter time.Time
	screen := func() Screen {
		switch enters := strings.Count(w.String(), "\r"); {
		case enters == 0:
			return drawnScreen{ready, 100}
		case enters == 1:
			if enter.IsZero() {
				enter = time.Now()
			}
			if time.Since(enter) < 5*p.SubmitWindow {
				return drawnScreen{ready, 100} // nothing drawn yet
			}
			return drawnScreen{staticScreen{rows: held, bracketed: ready.bracketed}, 3000}
		}
		return drawnScreen{staticScreen{rows: busy, bracketed: ready.bracketed}, 4000}
	}
	err := p.Submit(context.Background(), &w, screen, text)
	if err != nil || strings.Count(w.String(), pasteStart) != 1 || strings.Count(w.String(), "\r") != 2 {
		t.Errorf("Submit = %v, wrote %d pastes and %d Enters; want nil, the text once and Enter twice", err,
			strings.Count(w.String(), pasteStart), strings.Count(w.String(), "\r"))
	}
	if got := geminiPasted(text); got != "[Pasted Text: 18 lines]" {
		t.Errorf("geminiPasted = %q", got)
	}
	if got := geminiPasted(strings.Repeat("x", 501)); got != "[Pasted Text: 501 chars]" {
		t.Errorf("geminiPasted of 501 characters = %q", got)
	}
	if got := geminiPasted("Say ready."); got != "" {
		t.Errorf("geminiPasted of a short line = %q", got)
	}
}

// A turn at work while the box still holds the typed text is not the text's
// turn (measured in a whole run: a checkpoint request's Enter met Gemini
// CLI at work, Submit took the spinner for its turn, and the request sat in
// the box as a draft until the next request was refused for it). Submit
// says the Enter waits for that turn (ErrBusyTyped), and Enter is pressed
// once.
func TestBusyWithTheTextStillInTheBoxIsNotItsTurn(t *testing.T) {
	ready, p := geminiSubmitRig(t)
	text := "CHECKPOINT REQUEST: T1"
	typed := boxShowing(ready, text)
	busy := staticScreen{rows: slices.Clone(typed.rows), bracketed: ready.bracketed}
	busy.rows[len(busy.rows)-8] = "⠸ Thinking... (esc to cancel, 0s)"
	var w bytes.Buffer
	screen := typedThen(&w, ready, typed, busy)
	err := p.Submit(context.Background(), &w, screen, text)
	if !errors.Is(err, ErrBusyTyped) || strings.Count(w.String(), "\r") != 1 {
		t.Errorf("Submit = %v, Enter %d times; want ErrBusyTyped and Enter once", err, strings.Count(w.String(), "\r"))
	}
}

// geminiSubmitRig is the recorded Gemini CLI's ready screen and its profile
// with Submit's waits cut to a test's size.
func geminiSubmitRig(t *testing.T) (staticScreen, *Profile) {
	t.Helper()
	rec := loadRecording(t, "gemini", "checkpoint-200x50")
	ready := rec.screenAt(t, rec.Typed[0].Offset)
	p := mustProfile(t, "gemini")
	p.EnterDelay, p.SubmitWindow, p.EnterTries, p.Poll = 10*time.Millisecond, 50*time.Millisecond, 3, 5*time.Millisecond
	return ready, p
}

// aboveBox is screen with a row drawn right above its input box (its first
// row scrolled off).
func aboveBox(t *testing.T, screen staticScreen, row string) staticScreen {
	t.Helper()
	top := slices.IndexFunc(screen.rows, func(r string) bool { return strings.HasPrefix(strings.TrimSpace(r), "▄▄▄") })
	if top < 2 {
		t.Fatalf("no input box frame on the screen:\n%s", screen)
	}
	return staticScreen{bracketed: screen.bracketed, rows: slices.Concat(screen.rows[1:top], []string{row}, screen.rows[top:])}
}

// boxShowing is screen with text in its empty input box.
func boxShowing(screen staticScreen, text string) staticScreen {
	rows := slices.Clone(screen.rows)
	for i, r := range rows {
		rows[i] = strings.Replace(r, "Type your message or @path/to/file", text, 1)
	}
	return staticScreen{rows: rows, bracketed: screen.bracketed}
}

// typedThen is the screen as Submit meets it, by what it wrote to w: ready
// until it types, typed until its Enter, then after.
func typedThen(w *bytes.Buffer, ready, typed, after Screen) func() Screen {
	return func() Screen {
		switch {
		case w.Len() == 0:
			return ready
		case !strings.Contains(w.String(), "\r"):
			return typed
		}
		return after
	}
}

// Gemini CLI 0.61.0 still initializing on a loaded machine read a prompt
// 11 s after it was typed, drawing other things meanwhile, and only then
// printed its queue notice (a whole run: Submit had typed the text a second
// time by then; the queued copy ran, and the second sat in the box and ran
// after it). A CLI that queues is never typed into twice: its notice is
// watched for up to frozenWait, whatever it draws meanwhile; with none,
// the text is reported not submitted, typed once.
func TestGeminiUnseenPasteIsNeverTypedAgain(t *testing.T) {
	for _, c := range []struct {
		name   string
		notice time.Duration // after Enter; 0: never
		ok     bool
	}{
		{"the notice 11 s after Enter", 11 * time.Second, true},
		{"no notice", 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // CPU alone, on a clock of its own
			ready, p := geminiSubmitRig(t)
			clk := steppingClock{clock.NewFake(time.Date(2026, 11, 29, 15, 14, 16, 0, time.UTC))}
			p.Clock = clk
			noticed := aboveBox(t, ready, "ℹ Initializing... Prompts will be queued.")
			var w bytes.Buffer
			var enter time.Time
			drawn := uint64(100)
			screen := func() Screen {
				drawn += 10 // the CLI draws something all along
				if !strings.Contains(w.String(), "\r") {
					return drawnScreen{ready, drawn}
				}
				if enter.IsZero() {
					enter = clk.Now()
				}
				if c.notice > 0 && clk.Now().Sub(enter) >= c.notice {
					return drawnScreen{noticed, drawn}
				}
				return drawnScreen{ready, drawn}
			}
			err := p.Submit(context.Background(), &w, screen, "Say ready.")
			if (err == nil) != c.ok || (!c.ok && !errors.Is(err, ErrNotSubmitted)) {
				t.Errorf("Submit = %v, want ok %v", err, c.ok)
			}
			if n, m := strings.Count(w.String(), pasteStart), strings.Count(w.String(), "\r"); n != 1 || m != 1 {
				t.Errorf("wrote %d pastes and %d Enters; want the text once and Enter once", n, m)
			}
		})
	}
}
