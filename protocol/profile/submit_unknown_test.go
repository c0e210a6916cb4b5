//go:build !e2e

package profile

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

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
