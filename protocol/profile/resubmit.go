package profile

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// Resubmit finishes a submission a dialog interrupted (ErrDialogTyped): if
// the input box holds the text, Enter is pressed and verified as Submit does;
// if the box is empty (the CLI dropped the text), the text is typed again.
// A box that shows the CLI's summary of this paste (OpenCode's "[Pasted ~3
// lines]") holds the text. A box holding anything else is a draft:
// ErrDraft. A screen without the box (a redraw) or with a dialog gets no
// key: ErrDialogTyped.
func (p *Profile) Resubmit(ctx context.Context, w io.Writer, screen func() Screen, text string) error {
	if p.tui == nil {
		return p.Submit(ctx, w, screen, text)
	}
	s, v, err := p.boxOrDialog(ctx, screen)
	if err != nil {
		return fmt.Errorf("submit to %s: %w", p.Name, err)
	}
	switch {
	case v.dialog() || !v.hasBox || v.boxBuried():
		// A dialog, or a screen still without its box after SubmitWindow
		// (or a "box" with the transcript's rows under it: an echo read as
		// one, something else drawn where the box was): the text waits,
		// Enter is not pressed.
		return fmt.Errorf("submit to %s: %w", p.Name, ErrDialogTyped)
	case v.inputEmpty():
		return p.Submit(ctx, w, screen, text)
	}
	if !p.holds(s, v, text) {
		// Between two frames a CLI may show, as its only box, its echo of
		// an earlier message drawn like its input box (Gemini CLI 0.61
		// erases what is under that echo and draws the rest in writes of
		// its own): looked at again for up to SubmitWindow before it is
		// called a draft.
		found, err := p.pollUntil(ctx, p.SubmitWindow, func() bool {
			s = screen()
			v = p.tui.view(s.Rows())
			return v.hasBox && !v.dialog() && !v.boxBuried() && (v.inputEmpty() || p.holds(s, v, text))
		})
		switch {
		case err != nil:
			return fmt.Errorf("submit to %s: %w", p.Name, err)
		case !found:
			return fmt.Errorf("submit to %s: %w: %q", p.Name, ErrDraft, draftLine(v.text))
		case v.inputEmpty():
			return p.Submit(ctx, w, screen, text)
		}
	}
	return p.press(ctx, w, screen, text, true)
}

// holds reports whether the input box in v shows text: it starts with the
// text's first word, or it is the CLI's summary of this very paste
// (OpenCode's "[Pasted ~3 lines]", Gemini's "[Pasted Text: 18 lines]").
func (p *Profile) holds(s Screen, v *view, text string) bool {
	if p.pasted != nil && s.Bracketed() {
		if sum := p.pasted(Sanitize(text)); sum != "" && strings.TrimSpace(v.text) == sum {
			return true
		}
	}
	want := strings.Fields(Sanitize(text))
	got := strings.Fields(v.text)
	return len(got) > 0 && len(want) > 0 && got[0] == want[0]
}

// boxOrDialog polls the screen for up to SubmitWindow until it shows the
// input box or a dialog. A TUI redrawing between the two (OpenCode draws
// its permission dialog in place of the box, and the box again after Esc,
// over several frames) shows neither for a moment: a box missing then is
// not a draft.
func (p *Profile) boxOrDialog(ctx context.Context, screen func() Screen) (s Screen, v *view, err error) {
	if _, err = p.pollUntil(ctx, p.SubmitWindow, func() bool {
		s = screen()
		v = p.tui.view(s.Rows())
		return v.hasBox || v.dialog()
	}); err != nil {
		return nil, nil, err
	}
	return s, v, nil
}
