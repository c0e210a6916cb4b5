//go:build !e2e

package profile

import (
	"strings"
	"testing"
)

// Each real CLI's approval dialog, replayed from its recording: the
// question is what it asks and the command, never a choice or a key hint —
// Codex's too, whose choices are drawn in its composer's place under the
// question ("› 1. Yes, proceed (y)" is not what it waits on). Its id does
// not change when the selection moves.
func TestDialogQuestion(t *testing.T) {
	cases := []struct{ cli, name, asks string }{
		{"claude", "dialog-default-200x50", "Do you want to proceed?"},
		{"claude", "dialog-auto-200x50", "Do you want to proceed?"},
		{"codex", "dialog-200x50", "Would you like to run the following command?"},
		{"gemini", "dialog-200x50", "Allow execution of [Shell]?"},
		{"opencode", "dialog-200x50", "△ Permission required"},
		{"qwen", "dialog-200x50", "Allow execution of: 'curl'?"},
		{"copilot", "dialog-200x50", "Do you want to allow this access?"},
	}
	for _, c := range cases {
		t.Run(c.cli+"/"+c.name, func(t *testing.T) {
			rec := loadRecording(t, c.cli, c.name)
			p, _ := For(c.cli)
			s := rec.replay(t).to(sidecarDialogOffset(t, c.cli, c.name))
			d, ok := p.Dialog(s)
			if !ok {
				t.Fatalf("no dialog:\n%s", s)
			}
			q := d.Question
			if !strings.Contains(q, c.asks) || !strings.Contains(q, "curl -s http://127.0.0.1:9/probe > fetched.txt") {
				t.Errorf("question %q, want %q and the command", q, c.asks)
			}
			for _, bad := range []string{"1. ", "Yes", "Allow once", "sc to cancel", "enter to confirm", "Esc"} {
				if strings.Contains(q, bad) {
					t.Errorf("question holds %q:\n%s", bad, q)
				}
			}
		})
	}
	if q := QuestionOf("Whenever you receive a line CHECKPOINT REQUEST, reply.\n? Shell curl -s x > y\nAllow execution of: 'curl'?\n› 1. Yes, allow once"); q != "? Shell curl -s x > y\nAllow execution of: 'curl'?" {
		t.Errorf("the user's message above the tool's row is in the question: %q", q)
	}
	moved := strings.Replace("❯ 1. Yes\n2. No", "❯ 1. Yes\n2. No", "1. Yes\n❯ 2. No", 1)
	if DialogID("❯ 1. Yes\n2. No") != DialogID(moved) || DialogID("❯ 1. Yes\n2. No") == DialogID("❯ 1. Yes\n2. Nope") {
		t.Error("DialogID: the selection's mark changes it, or the text does not")
	}
}

// TestCopilotDialogKeepsItsIDWhileItWaits: Copilot's tool row above its
// dialog counts the seconds the call has waited ("$ Shell … 5s"): the
// dialog starts at the command under it, the same dialog every second.
func TestCopilotDialogKeepsItsIDWhileItWaits(t *testing.T) {
	p := mustProfile(t, "copilot")
	at := func(secs string) Dialog {
		t.Helper()
		d, ok := p.Dialog(rowsScreen{" $ Shell Fetch the probe page into fetched.txt" + secs,
			"   curl -s http://127.0.0.1:9/probe > fetched.txt", "", "",
			"╭──────────╮", "│ Copilot is attempting to access the following URL: │",
			"│ Do you want to allow this access? │", "│ ❯ 1. Yes │", "│   4. No, and tell Copilot what to do differently (Esc to stop) │",
			"│ ↑/↓ to navigate · enter to select · esc to cancel │", "╰──────────╯"})
		if !ok || d.Kind != DialogPermission {
			t.Fatalf("no permission dialog: %+v", d)
		}
		return d
	}
	first, later := at(""), at(" 7s")
	if DialogID(first.Text) != DialogID(later.Text) || strings.Contains(later.Text, "7s") ||
		!strings.HasPrefix(first.Text, "curl -s http://127.0.0.1:9/probe > fetched.txt\n") {
		t.Errorf("the dialog changed with its timer:\n%s\n--\n%s", first.Text, later.Text)
	}
}

// Qwen Code draws its confirmation's tool row, then a block cursor at its
// end: one dialog, so that a person's answer to the first is not refused
// as stale (measured in TestRealCLIAnswer/qwen-default).
func TestABlockCursorIsNotPartOfTheDialog(t *testing.T) {
	bare := "? Shell curl -s http://127.0.0.1:9/second > second.txt (Fetch the second probe) ←\n● 1. Allow once\n  2. No"
	cursor := "? Shell curl -s http://127.0.0.1:9/second > second.txt (Fetch the second probe) ← █\n● 1. Allow once\n  2. No"
	if DialogID(bare) != DialogID(cursor) {
		t.Errorf("a trailing block cursor made another dialog: %q vs %q", QuestionOf(bare), QuestionOf(cursor))
	}
	if q := QuestionOf(cursor); strings.Contains(q, "█") {
		t.Errorf("question %q holds the cursor", q)
	}
	if DialogID(bare) == DialogID(strings.Replace(bare, "second", "third", 1)) {
		t.Error("another command is the same dialog")
	}
}
