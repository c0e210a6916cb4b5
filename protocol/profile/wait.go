package profile

import (
	"context"
	"time"
)

// The waits of Submit and Resubmit: each polls the screen (every Poll, on
// the profile's clock) until it shows what the step waits for, or its
// time is up.

// waitBracketed polls the screen for up to pasteWait until the CLI has
// turned bracketed paste on, and returns the last screen.
func (p *Profile) waitBracketed(ctx context.Context, screen func() Screen) (Screen, error) {
	s := screen()
	if s.Bracketed() || p.pasteWait <= 0 {
		return s, nil
	}
	if _, err := p.pollUntil(ctx, p.pasteWait, func() bool { s = screen(); return s.Bracketed() }); err != nil {
		return nil, err
	}
	if !s.Bracketed() && p.log != nil {
		p.log.Warn("the CLI has not turned bracketed paste on: the text is typed as keys, on one line", "waited", p.pasteWait)
	}
	return s, nil
}

// waitLanded polls the screen for up to SubmitWindow until the input box
// shows the typed text (or a dialog, which press refuses to answer).
func (p *Profile) waitLanded(ctx context.Context, screen func() Screen) (landed bool, err error) {
	_, err = p.pollUntil(ctx, p.SubmitWindow, func() bool {
		s := screen()
		v := p.tui.view(s.Rows())
		landed = !v.inputEmpty()
		return landed || v.dialog() || waiting(s)
	})
	return landed, err
}

// waitStarted polls the screen for up to d until a turn has started.
func (p *Profile) waitStarted(ctx context.Context, screen func() Screen, landed bool, d time.Duration) (bool, error) {
	return p.pollUntil(ctx, d, func() bool { return p.started(landed, p.tui.view(screen().Rows())) })
}

// started reports whether v shows the turn Enter started. A dialog drawn
// after Enter is the turn at work (a tool call asking for approval);
// another Enter would answer it. A turn at work while the box still holds
// the text is not the text's: a submitted text leaves the box. The box
// that showed the text and is empty now is the turn, where the CLI empties
// its box only at a submission (!busyStarts).
func (p *Profile) started(landed bool, v *view) bool {
	return (v.busy() && !holding(landed, v)) || v.dialog() || (landed && v.hasBox && v.inputEmpty() && !p.busyStarts)
}

// holding reports whether the box still shows the typed text: it was seen
// there (landed), and the box, empty before it was typed, is not now.
func holding(landed bool, v *view) bool { return landed && v.hasBox && !v.inputEmpty() }

// redrawn polls the screen for up to d until it shows the input box, a
// turn at work or a dialog, and returns the last view.
func (p *Profile) redrawn(ctx context.Context, screen func() Screen, d time.Duration) (*view, error) {
	return p.redrawnUntil(ctx, screen, d, func(v *view) bool { return v.hasBox || v.busy() || v.dialog() })
}

// redrawnUntil polls the screen for up to d until done holds for its view,
// and returns the last view.
func (p *Profile) redrawnUntil(ctx context.Context, screen func() Screen, d time.Duration, done func(*view) bool) (*view, error) {
	var v *view
	if _, err := p.pollUntil(ctx, d, func() bool { v = p.tui.view(screen().Rows()); return done(v) }); err != nil {
		return nil, err
	}
	return v, nil
}

// pollUntil calls done every Poll for up to d, until it says yes; the last
// call is at or after d. It reports whether done said yes.
func (p *Profile) pollUntil(ctx context.Context, d time.Duration, done func() bool) (bool, error) {
	deadline := p.Clock.Now().Add(d)
	for {
		if done() {
			return true, nil
		}
		if !p.Clock.Now().Before(deadline) {
			return false, nil
		}
		if err := p.sleep(ctx, p.Poll); err != nil {
			return false, err
		}
	}
}

func (p *Profile) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-p.Clock.After(d):
		return nil
	}
}
