//go:build !e2e

package profile

import (
	"strings"
	"testing"
)

// copilotShellDialog is Copilot CLI 1.0.102's dialog for a shell command
// that fetches no URL (a model's "touch made-by-probe.txt"), copied from its
// screen against the fake provider (hand-written: the recorder's dialog
// scenario fetches a URL, and Copilot asks about the URL first).
var copilotShellDialog = rowsScreen{
	" ❯ Make the file.                                                  05:30",
	"",
	" $ Shell Create the probe file                                         7s",
	"   touch made-by-probe.txt",
	"", "", "",
	"╭──────────────────────────────────────────────────────────────────────────╮",
	"│ Create the probe file                                                    │",
	"│ ──────────────────────────────────────────────────────────────────────── │",
	"│ ╭──────────────────────────────────────────────────────────────────────╮ │",
	"│ │ touch made-by-probe.txt                                              │ │",
	"│ ╰──────────────────────────────────────────────────────────────────────╯ │",
	"│                                                                          │",
	"│ Do you want to run this command?                                         │",
	"│                                                                          │",
	"│ ❯ 1. Yes                                                                 │",
	"│   2. Yes, and don't ask again for `touch` in this directory (/tmp/.../project) │",
	"│   3. No, and tell Copilot what to do differently (Esc to stop)           │",
	"│                                                                          │",
	"│ ↑/↓ to navigate · enter to select · esc to cancel                        │",
	"╰──────────────────────────────────────────────────────────────────────────╯",
}

// TestCopilotShellCommandDialog: a command that fetches nothing is a
// permission dialog too, its question the command and "Do you want to run
// this command?"; never ready (nothing is typed into it); allow-once is
// Enter on "1. Yes", deny is Esc.
func TestCopilotShellCommandDialog(t *testing.T) {
	p := mustProfile(t, "copilot")
	d, ok := p.Dialog(copilotShellDialog)
	if !ok || d.Kind != DialogPermission || !strings.HasPrefix(d.Text, "touch made-by-probe.txt\n") ||
		!strings.Contains(d.Question, "Do you want to run this command?") || strings.Contains(d.Question, "Yes") {
		t.Fatalf("Dialog = %v %+v", ok, d)
	}
	if p.Ready(copilotShellDialog) {
		t.Error("ready while the dialog waits")
	}
	if keys, final, err := p.Answer(AnswerAllowOnce, copilotShellDialog); err != nil || !final || joinKeys(keys) != "\r" {
		t.Errorf("allow-once: %q %v %v", joinKeys(keys), final, err)
	}
	if keys, final, err := p.Answer(AnswerDeny, copilotShellDialog); err != nil || !final || joinKeys(keys) != "\x1b" {
		t.Errorf("deny: %q %v %v", joinKeys(keys), final, err)
	}
}
