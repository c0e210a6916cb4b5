package fakeagent

import (
	"bufio"
	"fmt"
	"os"
	"time"
)

// tui-unknown:FILE draws like tui-answer until the first line it is given
// is submitted; then, right after that Enter, it draws in place of its
// composer a dialog in words no profile knows (UnknownDialogRows), its
// first choice preselected, as any CLI update may. It never answers and
// never goes back to its composer. What happens is appended to FILE, a
// line each: "LINE <its start>" for the line submitted, "DIALOG <Unix
// nanoseconds>" when the dialog is drawn, and "KEY <quoted byte>" for
// every byte read after it — any of them would answer the dialog.
func init() {
	Register("tui-unknown", modeTUIUnknown)
}

// UnknownDialogRows is the dialog tui-unknown draws: words no profile's
// rules know (no "Yes"/"No", no "proceed", no "allow", no "Esc to
// cancel"), a choice marked with a glyph none of them uses.
var UnknownDialogRows = []string{
	" Heads up from the workshop",
	" The lantern wants to rearrange the attic before going on.",
	"",
	" ◆ Sounds good",
	"   Maybe later",
	"",
	" ↵ picks · ↑/↓ moves",
}

func modeTUIUnknown(args []string) int {
	if len(args) == 0 || args[0] == "" {
		fmt.Fprintln(os.Stderr, "fakeagent: tui-unknown needs a file")
		return 98
	}
	logf := func(s string) {
		f, err := os.OpenFile(args[0], os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err == nil {
			fmt.Fprintln(f, s)
			f.Close()
		}
	}
	t, restore := newTUI(16)
	defer restore()
	write([]byte("\x1b[?1049h\x1b[?2004h\x1b[2J"))
	t.transcript = []string{"ready"}
	t.frame("")
	dialog := false
	in := bufio.NewReader(os.Stdin)
	for {
		c, err := in.ReadByte()
		if err != nil {
			break
		}
		if dialog {
			logf(fmt.Sprintf("KEY %q", c))
			continue
		}
		line, enter := t.key(c, in)
		if !enter || line == "" {
			continue
		}
		dialog = true
		t.transcript = append(t.transcript, "", "> "+firstWords(line))
		logf("LINE " + firstWords(line))
		t.dialogFrame(UnknownDialogRows)
		logf(fmt.Sprintf("DIALOG %d", time.Now().UnixNano()))
	}
	write([]byte("\x1b[?2004l\x1b[?1049l"))
	return 0
}
