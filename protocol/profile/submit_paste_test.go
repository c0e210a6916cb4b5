//go:build !e2e

package profile

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
)

// Gemini CLI 0.61.0 draws its empty input box a render before it turns
// bracketed paste on (every recording: the box's placeholder, then CSI
// ?2004h some 1.5 KB later). A whole run typed into it in between: the text
// arrived as keys, on one line, and the "?" in it, read while Gemini's box
// still counted as empty, opened its shortcuts panel and was lost. Submit
// waits for bracketed paste before it types, and pastes.
func TestSubmitWaitsForBracketedPaste(t *testing.T) {
	rec := loadRecording(t, "gemini", "checkpoint-200x50")
	on := bytes.Index(rec.raw, []byte("\x1b[?2004h"))
	early := rec.screenAt(t, on)
	ready := rec.screenAt(t, rec.Typed[0].Offset)
	p := mustProfile(t, "gemini")
	if early.Bracketed() || !p.Ready(early) || !ready.Bracketed() {
		t.Fatalf("want the box drawn before bracketed paste: ready %v, bracketed %v then %v\n%s",
			p.Ready(early), early.Bracketed(), ready.Bracketed(), early)
	}
	text := "Switch to a model?\nSay ready."
	for _, c := range []struct {
		name   string
		after  time.Duration // bracketed paste turned on; 0: never
		pasted bool
	}{
		{"on a moment later", 700 * time.Millisecond, true},
		{"on just before the wait ends", 9 * time.Second, true},
		{"never", 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := mustProfile(t, "gemini")
			clk := steppingClock{clock.NewFake(time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC))}
			start := clk.Now()
			p.Clock = clk
			p.EnterDelay, p.SubmitWindow, p.EnterTries, p.Poll = 10*time.Millisecond, 50*time.Millisecond, 3, 25*time.Millisecond
			var w bytes.Buffer
			typedAt := time.Duration(-1)
			screen := func() Screen {
				if w.Len() == 0 && (c.after == 0 || clk.Now().Sub(start) < c.after) {
					return early
				}
				if typedAt < 0 {
					typedAt = clk.Now().Sub(start)
				}
				shown := strings.ReplaceAll(text, "\n", " ")
				if c.pasted {
					shown = geminiPasted(text)
				}
				return typedThen(&w, ready, boxShowing(ready, shown), aboveBox(t, ready, "ℹ Initializing... Prompts will be queued."))()
			}
			err := p.Submit(context.Background(), &w, screen, text)
			got := w.String()
			if err != nil || strings.HasPrefix(got, pasteStart) != c.pasted {
				t.Fatalf("Submit = %v, wrote %q; want nil, pasted %v", err, got, c.pasted)
			}
			if !c.pasted && (typedAt < p.pasteWait || !strings.HasPrefix(got, "Switch to a model? Say ready.")) {
				t.Errorf("typed as keys after %v, %q; want after the %v wait, on one line", typedAt, got, p.pasteWait)
			}
		})
	}
}
