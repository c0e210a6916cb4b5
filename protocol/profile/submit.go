package profile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/wardenhq/warden/protocol"
)

// Errors Submit returns (wrapped).
var (
	// ErrDraft: the input box already held text; nothing was typed.
	ErrDraft = errors.New("input box holds a draft")
	// ErrDialog: the CLI shows a dialog that waits for a choice; nothing
	// was typed (a line and Enter would answer it).
	ErrDialog = errors.New("a dialog waits for a choice")
	// ErrDialogTyped: a dialog came up after the text was typed; Enter was
	// not pressed. The text may still be in the input box (Resubmit).
	ErrDialogTyped = errors.New("a dialog came up before Enter")
	// ErrBusyTyped: the CLI was at work on a turn when Enter was due — a
	// turn the text did not start (it began after the text was typed: a
	// first prompt the CLI took late, a hook's turn). Enter was not
	// pressed: that turn may raise an approval dialog at any moment, and an
	// Enter crossing it on its way would answer it (Yes, preselected). The
	// text is in the input box; Resubmit presses Enter once the turn is over.
	ErrBusyTyped = errors.New("the CLI is at work on a turn before Enter")
	// ErrNotSubmitted: Enter was pressed EnterTries times and no turn
	// started. The text may still sit in the input box.
	ErrNotSubmitted = errors.New("text typed but no turn started")
)

// Submit types text the CLI's way and makes sure a turn started.
//
// Plain: the sanitized text and "\n" in one write. TUIs: refuse if the
// input box already holds a draft (ErrDraft, nothing typed); write the
// sanitized text once, bracketed if the app enabled bracketed paste (a CLI
// that enables it gets up to pasteWait to do so before anything is typed); wait
// EnterDelay; press Enter ("\r") as a write of its own; then watch the
// screen until the turn starts (Busy, or the box that held the text is
// empty). Without that, Enter is pressed again, up to EnterTries in all,
// each wait twice the one before. The text is typed a second time only when
// it never showed in the box and the box is empty after Enter with no turn
// running (the CLI dropped it unseen); no Ctrl-C is ever sent. screen
// returns the current screen.
func (p *Profile) Submit(ctx context.Context, w io.Writer, screen func() Screen, text string) error {
	text = Sanitize(text)
	if p.tui == nil {
		if _, err := io.WriteString(w, text+"\n"); err != nil {
			return fmt.Errorf("submit to %s: %w", p.Name, err)
		}
		return nil
	}
	s, err := p.waitBracketed(ctx, screen)
	if err != nil {
		return fmt.Errorf("submit to %s: %w", p.Name, err)
	}
	v := p.tui.view(s.Rows())
	if v.dialog() || waiting(s) {
		return fmt.Errorf("submit to %s: %w", p.Name, ErrDialog)
	}
	if v.hasBox && !v.inputEmpty() {
		return fmt.Errorf("submit to %s: %w: %q", p.Name, ErrDraft, draftLine(v.text))
	}
	notices, mark := p.queuedNotices(s.Rows()), drawnMark(s)
	if _, err := io.WriteString(w, payload(text, s.Bracketed())); err != nil {
		return fmt.Errorf("submit to %s: type: %w", p.Name, err)
	}
	if err := p.sleep(ctx, p.EnterDelay); err != nil {
		return fmt.Errorf("submit to %s: %w", p.Name, err)
	}
	// The text should now be in the box. A CLI slow to draw (a loaded
	// machine) gets up to SubmitWindow to show it; if the box still shows
	// empty (the CLI hid or dropped it), only a busy screen proves the
	// submission.
	landed, err := p.waitLanded(ctx, screen)
	if err != nil {
		return fmt.Errorf("submit to %s: %w", p.Name, err)
	}
	if !landed {
		p.log.Warn("typed text not visible in the input box", "bytes", len(text))
	}
	err = p.press(ctx, w, screen, text, landed)
	if landed || !errors.Is(err, errDropped) {
		return err
	}
	// The text never showed in the box, and after Enter the box is empty
	// and no turn runs: the CLI slow to draw, took the text into its queue
	// (Gemini CLI still initializing on a loaded machine: the box stays
	// empty, no turn runs, and a notice says the prompt is queued), or it
	// dropped the text unseen. A slow CLI shows its turn soon: watched for
	// three more windows. A CLI that queues prompts while it starts says
	// so only once it reads them — on a loaded machine 11 s after the text
	// was typed, drawing other things meanwhile (Gemini CLI 0.61, a whole
	// run): watched for up to frozenWait, and never typed again (a second
	// copy ran after the queued one). Still nothing, elsewhere: typed once
	// more, the same way — and Enter only if it shows in the box this time
	// (an Enter on an empty box may land in what a slow turn draws next:
	// an approval dialog, Yes preselected).
	queued := func(v *view) bool { return p.queuedNotices(v.rows) > notices }
	// (A screen without the box is the CLI between frames — Qwen Code
	// takes its box off before it draws the turn — or something drawn in
	// its place: no key is pressed either way, so it is waited through.)
	told := func(v *view) bool { return v.busy() || v.dialog() || (v.hasBox && !v.inputEmpty()) || queued(v) }
	queues, watch := p.tui.queued != nil, 3*p.SubmitWindow
	if queues {
		watch = frozenWait
	}
	v, err = p.redrawnUntil(ctx, screen, watch, told)
	if err == nil && !told(v) && !queues && !drawnSince(screen(), mark) {
		// Nothing drawn since the text was typed: the CLI is not drawing
		// at all (Gemini CLI initializing on a loaded machine renders
		// nothing for seconds, then its queue notice and the turn). Its
		// next frames say what became of the text.
		p.log.Info("the CLI has drawn nothing since the text was typed: waiting for it", "waited", 4*p.SubmitWindow)
		if err = p.untilDrawn(ctx, screen, mark, frozenWait); err == nil {
			v, err = p.redrawnUntil(ctx, screen, 3*p.SubmitWindow, told)
		}
	}
	switch {
	case err != nil:
		return fmt.Errorf("submit to %s: %w", p.Name, err)
	case v.busy() || v.dialog() || waiting(screen()):
		return nil // the Enter started the turn, late
	case queued(v):
		p.log.Info("the CLI queued the text: its turn comes once the CLI is ready", "bytes", len(text))
		return nil
	case v.hasBox && p.holds(screen(), v, text):
		// The text showed in the box at last, and the Enter pressed before
		// it did was lost (a CLI that reads a paste and the key after it in
		// one go takes the key for part of the paste): Enter again, into
		// the box that holds it.
		p.log.Info("the typed text showed in the input box late: pressing Enter again", "bytes", len(text))
		return p.press(ctx, w, screen, text, true)
	case !v.hasBox:
		return fmt.Errorf("submit to %s: %w (no turn, and something else drawn in place of the box; not typed again)", p.Name, ErrUnknownScreen)
	case !v.inputEmpty():
		return fmt.Errorf("submit to %s: %w (no turn after Enter, and the box does not show empty; not typed again)", p.Name, ErrNotSubmitted)
	case queues:
		return fmt.Errorf("submit to %s: %w (never seen in the box, no turn and no queue notice in %s; the CLI may still queue it: not typed again)", p.Name, ErrNotSubmitted, frozenWait)
	case !drawnSince(screen(), mark):
		return fmt.Errorf("submit to %s: %w (the CLI drew nothing for %s after the text was typed; not typed again)", p.Name, ErrNotSubmitted, frozenWait)
	}
	if now := p.tui.view(screen().Rows()); !now.hasBox || !now.inputEmpty() || now.dialog() || now.busy() {
		// Read again just before typing: the text goes only into the CLI's
		// own box, empty; anything else gets no key.
		return fmt.Errorf("submit to %s: %w (the screen changed before the text could be typed again; not typed)", p.Name, ErrUnknownScreen)
	}
	p.log.Warn("typed text never reached the input box: typing it once more", "bytes", len(text), "output_since", drawnMark(screen())-mark)
	if _, err := io.WriteString(w, payload(text, screen().Bracketed())); err != nil {
		return fmt.Errorf("submit to %s: type: %w", p.Name, err)
	}
	if err := p.sleep(ctx, p.EnterDelay); err != nil {
		return fmt.Errorf("submit to %s: %w", p.Name, err)
	}
	if landed, err = p.waitLanded(ctx, screen); err != nil {
		return fmt.Errorf("submit to %s: %w", p.Name, err)
	}
	if !landed {
		return fmt.Errorf("submit to %s: %w (typed twice, never seen in the input box; Enter not pressed again)", p.Name, ErrNotSubmitted)
	}
	return p.press(ctx, w, screen, text, true)
}

// errDropped: press found the box empty after Enter, no turn running, and
// the text was never seen in the box.
var errDropped = errors.New("the typed text was never seen and the box is empty")

// press presses Enter as a write of its own and watches the screen until
// the turn starts, pressing it again up to EnterTries in all — never when a
// dialog is up, and a second time only into the CLI's own input box still
// holding text: anything else on the screen (a dialog in words no profile
// knows, drawn where the box was) stops it with no key. landed: the typed
// text was seen in the input box.
func (p *Profile) press(ctx context.Context, w io.Writer, screen func() Screen, text string, landed bool) error {
	window := p.SubmitWindow
	for try := 1; try <= max(p.EnterTries, 1); try++ {
		// A dialog drawn while the text was typed (the turn before it is at
		// work) would take this Enter as its answer: Yes, in most CLIs.
		s := screen()
		v := p.tui.view(s.Rows())
		if v.dialog() || waiting(s) {
			return fmt.Errorf("submit to %s: %w", p.Name, ErrDialogTyped)
		}
		if try > 1 && !v.busy() && (!v.hasBox || !p.holds(s, v, text)) {
			// Read again just before a repeated Enter: the box is gone or
			// holds something else.
			if !v.hasBox {
				return fmt.Errorf("submit to %s: %w (not pressed again)", p.Name, ErrUnknownScreen)
			}
			return fmt.Errorf("submit to %s: %w (the input box no longer holds the text; Enter not pressed again)", p.Name, ErrNotSubmitted)
		}
		if v.busy() {
			if (try > 1 && !holding(landed, v)) || (landed && v.inputEmpty()) {
				return nil // the Enter already pressed, or the text itself, started this turn
			}
			return fmt.Errorf("submit to %s: %w", p.Name, ErrBusyTyped)
		}
		if _, err := io.WriteString(w, "\r"); err != nil {
			return fmt.Errorf("submit to %s: enter: %w", p.Name, err)
		}
		started, err := p.waitStarted(ctx, screen, landed, window)
		if err != nil {
			return fmt.Errorf("submit to %s: %w", p.Name, err)
		}
		if started {
			if try > 1 {
				p.log.Info("turn started after Enter was repeated", "tries", try)
			}
			return nil
		}
		last := p.tui.view(screen().Rows())
		if p.started(landed, last) {
			// Drawn just after the wait's last look (Qwen Code on a loaded
			// machine drew its turn 2 s after Enter, the box hidden under it).
			return nil
		}
		if !last.hasBox && p.redrawsAfterEnter {
			// Neither the box nor a turn: the CLI is between frames (OpenCode
			// blanks its screen while it opens the session view, for
			// seconds on a loaded machine). Wait for what it draws next.
			// (Elsewhere no box is something else drawn in its place: a
			// dialog of a kind the profile does not know, whose news may be
			// on its way through a hook; not waited on here.)
			if last, err = p.redrawn(ctx, screen, 3*window); err != nil {
				return fmt.Errorf("submit to %s: %w", p.Name, err)
			}
			if p.started(landed, last) {
				return nil
			}
		}
		p.log.Info("no turn yet after Enter", "try", try, "waited", window,
			"box", draftLine(last.text), "has_box", last.hasBox, "busy", last.busy())
		// Enter again only into the input box still holding the text. Enter
		// on an empty box submits nothing; and when the CLI is only slow to
		// draw, the Enter already pressed will start the turn — a second
		// one would then land in whatever the turn shows next: an approval
		// dialog, whose preselected answer is Yes. With no box on the
		// screen, something else is drawn where it was (a dialog of a kind
		// the profile does not know, a notice): not pressed again either.
		switch {
		case !last.hasBox:
			return fmt.Errorf("submit to %s: %w (not pressed again)", p.Name, ErrUnknownScreen)
		case last.inputEmpty() && !landed:
			return errDropped
		case last.inputEmpty():
			// The box took the text and emptied at Enter, but (a CLI whose
			// busy row alone proves a turn) no turn shows yet: slow to draw
			// on a loaded machine (Qwen Code), watched for three windows more.
			v, err := p.redrawnUntil(ctx, screen, 3*window, func(v *view) bool { return v.busy() || v.dialog() })
			if err != nil {
				return fmt.Errorf("submit to %s: %w", p.Name, err)
			}
			if v.busy() || v.dialog() {
				return nil
			}
			return fmt.Errorf("submit to %s: %w (the input box shows empty after Enter; not pressed again)", p.Name, ErrNotSubmitted)
		case !p.holds(screen(), last, text):
			if _, unknown := p.Unknown(screen()); unknown {
				return fmt.Errorf("submit to %s: %w (not pressed again)", p.Name, ErrUnknownScreen)
			}
			return fmt.Errorf("submit to %s: %w (the input box holds something else after Enter; not pressed again)", p.Name, ErrNotSubmitted)
		}
		window *= 2
	}
	return fmt.Errorf("submit to %s: %w (Enter pressed %d times)", p.Name, ErrNotSubmitted, max(p.EnterTries, 1))
}

// draftLine is what an error or a log line quotes of the input box: its
// first line, cut at 60 bytes (on a rune's boundary).
func draftLine(s string) string {
	s = protocol.FirstLine(s)
	if len(s) > 60 {
		cut := 60
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// Waiter is a Screen that also knows whether the CLI said by other means
// than its screen (a program-status report, its title, a hook) that it waits
// on a dialog.
type Waiter interface {
	Waiting() bool
}

func waiting(s Screen) bool {
	w, ok := s.(Waiter)
	return ok && w.Waiting()
}
