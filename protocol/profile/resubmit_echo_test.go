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

// geminiFrames are two screens of Gemini CLI 0.61.0 50 ms apart (issue 35's
// long run, beside a CPU burner; rows abbreviated): a request typed while
// the first prompt's turn ran its hooks sits in the input box; between two
// frames Gemini had erased everything under its echo of the first prompt,
// which it draws in a box like its input box, and that echo was the only
// box on the screen.
func geminiFrames() (between, box staticScreen) {
	top := strings.Repeat("▄", 120)
	bottom := strings.Repeat("▀", 120)
	head := []string{"", " ▝▜▄     Gemini CLI v0.61.0", "", "Tips for getting started:", "1. /help for more information",
		top, " > You are running under warden, a supervisor for coding agents.", "   Your task: T3.", "",
		"   CHECKPOINT: T3", "   Status: <implementing | testing | awaiting-verification | blocked | complete>",
		"   Estimated Progress: [N]%", "", "   Say ready.", bottom}
	between = staticScreen{rows: append(append([]string{}, head...), "", "", ""), bracketed: true}
	box = staticScreen{rows: append(append([]string{}, head...), "✦ ready", "", "", strings.Repeat("─", 120),
		" Shift+Tab to accept edits", top, " > "+geminiRequest, bottom,
		" workspace (/directory)                                    sandbox"), bracketed: true}
	return between, box
}

const geminiRequest = "CHECKPOINT REQUEST: T3 (answer with your checkpoint block: lines CHECKPOINT, Status, Completed, Remaining, Files Modified, Estimated Progress)"

// Resubmit finishing a request typed while a turn ran (ErrBusyTyped) read
// the frame between two redraws, took Gemini's echo of the first prompt for
// its input box holding a draft, and gave up (ErrDraft): the request stayed
// in the box, unsent, and every later request found it there as a draft —
// the agent was asked nothing more until it was called stale and
// restarted. A box that seems to hold something else is looked at again
// for up to SubmitWindow; the input box back, holding the text, gets its
// Enter.
func TestResubmitLooksAgainPastAnEchoTakenForTheBox(t *testing.T) {
	between, box := geminiFrames()
	p := mustProfile(t, "gemini")
	if from, _, ok := p.Composer(between.rows); !ok || from != 5 {
		t.Fatalf("the frame between redraws: composer %d %v, want the echo (row 5) read as the box", from, ok)
	}
	p.EnterDelay, p.SubmitWindow, p.EnterTries = 10*time.Millisecond, 100*time.Millisecond, 1
	p.Clock = steppingClock{clock.NewFake(time.Date(2026, 12, 7, 15, 47, 0, 0, time.UTC))}
	var w bytes.Buffer
	err := p.Resubmit(context.Background(), &w, firstThen(between, box), geminiRequest)
	if !strings.Contains(w.String(), "\r") {
		t.Fatalf("Resubmit = %v, wrote %q: want Enter pressed into the box holding the request", err, w.String())
	}
}
