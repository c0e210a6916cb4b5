//go:build !e2e

package profile

import (
	"strings"
	"testing"
)

// pausedGoalScreen is Codex 0.171.0's "Resume paused goal?" after `codex
// resume` of a thread whose goal is paused: its title, the goal, the two
// choices (Resume goal preselected) and the popup's hint, in place of the
// input box.
func pausedGoalScreen() staticScreen {
	return staticScreen{rows: []string{
		"╭──────────────────────────────────────────────╮",
		"│ >_ OpenAI Codex (v0.171.0)                   │",
		"│                                              │",
		"│ model:     gpt-5.5 high   /model to change   │",
		"│ directory: ~/work/app                        │",
		"╰──────────────────────────────────────────────╯",
		"",
		"› Ship the release notes",
		"",
		"• Drafted the notes; the goal is paused.",
		"",
		"",
		"  Resume paused goal?",
		"  Goal: Ship the release notes",
		"",
		"› 1. Resume goal   Mark it active and continue when idle",
		"  2. Leave paused  Keep it paused; use /goal resume later",
		"",
		"  Press enter to confirm or esc to go back",
	}}
}

// The codex profile knows "Resume paused goal?": a dialog announced like a
// permission dialog (at once, with its text and its question — the goal
// included), that warden never answers: its deny and allow-once are both
// refused (each choice, Esc's "leave paused" too, is the user's), and the
// CLI is not ready for text while it shows (an Enter would resume the goal).
func TestCodexPausedGoalIsNeverAnswered(t *testing.T) {
	p, _ := For("codex")
	s := pausedGoalScreen()
	d, ok := p.Dialog(s)
	if !ok || d.Kind != DialogPermission || !d.PersonOnly {
		t.Fatalf("Dialog = %v %+v; want a permission dialog warden never answers", ok, d)
	}
	if !strings.HasPrefix(d.Text, "Resume paused goal?\nGoal: Ship the release notes\n") || !strings.Contains(d.Text, "2. Leave paused") {
		t.Errorf("text %q; want the dialog from its title, with its choices", d.Text)
	}
	if d.Question != "Resume paused goal?\nGoal: Ship the release notes" {
		t.Errorf("question %q; want the title and the goal", d.Question)
	}
	for _, choice := range []string{AnswerDeny, AnswerAllowOnce} {
		if keys, _, err := p.Answer(choice, s); err == nil || !strings.Contains(err.Error(), "never answers") {
			t.Errorf("%s: keys %q, error %v; want refused", choice, keys, err)
		}
	}
	if p.Ready(s) {
		t.Error("ready for text while the dialog waits")
	}
	// A permission dialog of Codex's own is still answered as before.
	approval := staticScreen{rows: []string{
		"  Would you like to run the following command?",
		"",
		"  $ curl -s http://127.0.0.1:9/probe",
		"",
		"› 1. Yes, proceed (y)",
		"  2. No, and tell Codex what to do differently (esc)",
		"",
		"  Press enter to confirm or esc to cancel",
	}}
	if d, ok := p.Dialog(approval); !ok || d.PersonOnly {
		t.Errorf("approval dialog %v %+v; want one warden may answer", ok, d)
	}
	if _, _, err := p.Answer(AnswerDeny, approval); err != nil {
		t.Errorf("deny of an approval: %v", err)
	}
}
