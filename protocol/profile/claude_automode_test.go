//go:build !e2e

package profile

import (
	"strings"
	"testing"
)

// autoOfferScreen is Claude Code 2.1.332's auto-mode offer as it draws it
// behind a gateway at the first tool call (the text of issue 35 and of
// testdata/dialogs/claude-dialog-screen.txt's first screen).
func autoOfferScreen() staticScreen {
	rule := strings.Repeat("─", 120)
	return staticScreen{rows: []string{
		"❯ Fetch http://127.0.0.1:9/probe into fetched.txt.",
		"",
		"● Fetching the probe page into fetched.txt",
		"  ⎿  $ curl -s http://127.0.0.1:9/probe > fetched.txt",
		"",
		rule,
		"  Auto mode can't check actions in this session",
		"",
		"  Auto mode's safety check runs on the server. Your requests go through 127.0.0.1:8080, and the check isn't getting",
		"  through.",
		"",
		"  You can stay in auto mode and approve each action that needs the check yourself.",
		"",
		"  Or you can leave for accept edits mode, which has no safety check, and auto mode stays off. This turn stops.",
		"",
		"  Enter to stay in auto mode · shift+Tab to leave for accept edits mode and stop · Esc to cancel",
	}}
}

// The offer is a permission dialog with its own question, its three
// choices and their keys; Esc is its deny (claude_automode.go: the turn
// stops, nothing runs, the mode stays), allow-once is refused (no choice
// allows one action), and the CLI is not ready for text while it shows.
func TestClaudeAutoModeOffer(t *testing.T) {
	p, _ := For("claude")
	s := autoOfferScreen()
	d, ok := p.Dialog(s)
	if !ok || d.Kind != DialogPermission {
		t.Fatalf("Dialog = %v %+v; want a permission dialog", ok, d)
	}
	if !strings.HasPrefix(d.Question, "Auto mode can't check actions in this session: stay in auto mode, or leave it?\n") {
		t.Errorf("question %q", d.Question)
	}
	for _, choice := range []string{"Enter: stay in auto mode", "shift+Tab: leave for accept edits mode", "Esc: cancel, warden's deny"} {
		if !strings.Contains(d.Question, "\n"+choice) {
			t.Errorf("the question does not list the choice %q:\n%s", choice, d.Question)
		}
	}
	if q := QuestionOf(d.Text); q != d.Question {
		t.Errorf("QuestionOf(text) = %q; want the dialog's question (ps and notifications read it)", q)
	}
	if p.Ready(s) {
		t.Error("ready for text while the offer waits")
	}
	keys, final, err := p.Answer(AnswerDeny, s)
	if err != nil || !final || len(keys) != 1 || string(keys[0].Bytes) != "\x1b" {
		t.Errorf("deny: %q %v %v; want Esc, final", keys, final, err)
	}
	if keys, _, err := p.Answer(AnswerAllowOnce, s); err == nil {
		t.Errorf("allow-once answered the offer with %q: no choice of it allows one action", keys)
	}

	// Its hook message is the same dialog, with the same question.
	h := claudeWaiting(KindClaudeNotification, []byte(`{"message":"Auto mode can't check actions in this session and needs your choice","notification_type":"agent_needs_input"}`))
	if h == nil || h.Kind != DialogPermission || h.Question != d.Question {
		t.Errorf("hook: %+v; want a permission dialog with the offer's question", h)
	}

	// The approval dialog that follows Enter keeps its own question.
	after := staticScreen{rows: append(s.rows[:6:6],
		" Auto mode can't check actions in this session, so this one needs your approval",
		" Do you want to proceed?",
		" ❯ No",
		"   Yes",
		" Esc to cancel · Tab to amend")}
	if d, ok := p.Dialog(after); !ok || d.Kind != DialogPermission || strings.Contains(d.Question, "stay in auto mode") {
		t.Errorf("the approval dialog after the offer: %v %+v", ok, d)
	}
}
