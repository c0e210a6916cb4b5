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

	"github.com/wardenhq/warden/testrig/fakeagent"
)

// unknownRig is one CLI's recorded screens around a checkpoint request —
// ready (the empty box), held (the request in the box, before Enter) — and
// held with the box and everything under it replaced by a dialog in words
// no profile knows (fakeagent.UnknownDialogRows), as a CLI update may draw
// one right after Enter.
type unknownRig struct {
	text                   string
	ready, held, unknownAt staticScreen
}

func newUnknownRig(t *testing.T, p *Profile, cli string) unknownRig {
	t.Helper()
	rec := loadRecording(t, cli, "checkpoint-200x50")
	i := slices.IndexFunc(rec.Typed, func(ty struct {
		AtMS   int    `json:"at_ms"`
		Offset int    `json:"offset"`
		Text   string `json:"text"`
	}) bool {
		return strings.HasPrefix(ty.Text, "CHECKPOINT REQUEST")
	})
	if i < 0 || i+1 >= len(rec.Typed) {
		t.Fatalf("%s: no checkpoint request and its Enter in the recording", cli)
	}
	rp := rec.replay(t)
	r := unknownRig{text: rec.Typed[i].Text, ready: rp.to(rec.Typed[i].Offset), held: rp.to(rec.Typed[i+1].Offset)}
	hv := p.tui.view(r.held.rows)
	if !p.InputEmpty(r.ready) || !hv.hasBox || !p.holds(r.held, hv, r.text) {
		t.Fatalf("%s: the recorded screens: ready empty %v, held box %v holding the request %v", cli,
			p.InputEmpty(r.ready), hv.hasBox, p.holds(r.held, hv, r.text))
	}
	rows := slices.Clone(r.held.rows)
	for j := hv.box.from; j < len(rows); j++ {
		rows[j] = ""
	}
	copy(rows[hv.box.from:], fakeagent.UnknownDialogRows)
	r.unknownAt = staticScreen{rows: rows, bracketed: r.held.bracketed}
	return r
}

// screens is the CLI as warden's writes make it: ready until the text is
// typed, the text in the box until Enter, then the unknown dialog.
func (r unknownRig) screens(w *bytes.Buffer) func() Screen {
	return func() Screen {
		switch s := w.String(); {
		case strings.Contains(s, "\r"):
			return r.unknownAt
		case s != "":
			return r.held
		}
		return r.ready
	}
}

// TestNoKeyIntoAnUnknownScreen: for every profile, a dialog in words no
// profile knows drawn in place of the input box right after the first
// Enter gets no key — no second Enter, nothing typed again — and Submit
// says ErrUnknownScreen (an ErrNotSubmitted); the profile reads the screen
// as Unknown, with the dialog's words; Resubmit types nothing into it.
func TestNoKeyIntoAnUnknownScreen(t *testing.T) {
	for _, cli := range Names() {
		t.Run(cli, func(t *testing.T) {
			p := mustProfile(t, cli)
			if p.tui == nil {
				var w bytes.Buffer
				if err := p.Submit(context.Background(), &w, nil, "CHECKPOINT REQUEST: T1"); err != nil || w.String() != "CHECKPOINT REQUEST: T1\n" {
					t.Fatalf("plain Submit = %v, wrote %q; want the line and its newline in one write", err, w.String())
				}
				return
			}
			r := newUnknownRig(t, p, cli)
			for _, name := range []string{"text shown", "text never shown"} {
				p := mustProfile(t, cli)
				p.EnterDelay, p.SubmitWindow = 5*time.Millisecond, 20*time.Millisecond
				if _, ok := p.Dialog(r.unknownAt); ok {
					t.Fatalf("the unknown dialog is a dialog the %s profile knows", cli)
				}
				var w bytes.Buffer
				screens := r.screens(&w)
				if name == "text never shown" {
					// The box stays empty (a CLI slow to draw), then the dialog.
					screens = func() Screen {
						if strings.Contains(w.String(), "\r") {
							return r.unknownAt
						}
						return r.ready
					}
				}
				err := p.Submit(context.Background(), &w, screens, r.text)
				_, after, _ := strings.Cut(w.String(), "\r")
				if !errors.Is(err, ErrUnknownScreen) || !errors.Is(err, ErrNotSubmitted) || after != "" {
					t.Errorf("%s, %s: Submit = %v; wrote %q after the first Enter; want ErrUnknownScreen and nothing", cli, name, err, after)
				}
			}
			text, ok := p.Unknown(r.unknownAt)
			if !ok || !strings.Contains(text, "rearrange the attic") || !strings.Contains(text, "Sounds good") {
				t.Errorf("%s: Unknown = %q, %v; want the dialog's words", cli, text, ok)
			}
			if _, ok := p.Unknown(r.held); ok {
				t.Errorf("%s: the box holding the request reads as an unknown screen", cli)
			}
			p.SubmitWindow = 20 * time.Millisecond
			var w bytes.Buffer
			err := p.Resubmit(context.Background(), &w, func() Screen { return r.unknownAt }, r.text)
			if !errors.Is(err, ErrDialogTyped) || w.Len() != 0 {
				t.Errorf("%s: Resubmit on the unknown dialog = %v, wrote %q; want ErrDialogTyped and nothing", cli, err, w.String())
			}
		})
	}
}
