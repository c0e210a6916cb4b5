package supervisor

import (
	"strings"
	"time"

	"github.com/wardenhq/warden/protocol"
)

// profile is how warden types into an agent CLI and reads it (DESIGN §7).
// This is the plain profile's shape; the CLI profiles refine it.
type profile struct {
	name string
	// mode is how the protocol reader reads the screen.
	mode protocol.Mode
	// settle is how long output must be quiet before the reader parses what
	// is on screen (a block's end, a settled TUI frame).
	settle time.Duration
	// turnQuiet is how long output must be quiet to call it a turn
	// boundary, where a request may be typed.
	turnQuiet time.Duration
	// submit turns text into the bytes that submit it.
	submit func(text string) [][]byte
	// quit is typed to ask the agent to exit, before SIGTERM.
	quit []byte
	// continueText is typed after a usage-limit wait.
	continueText string
}

func profileFor(name string) profile {
	switch name {
	case "claude", "codex", "gemini":
		return profile{name: name, mode: protocol.ModeScreen, settle: 50 * time.Millisecond,
			turnQuiet: 2 * time.Second, submit: pasteThenEnter, quit: []byte("/exit\r"), continueText: "continue"}
	default:
		return profile{name: "plain", mode: protocol.ModeLines, settle: 5 * time.Millisecond,
			turnQuiet: 250 * time.Millisecond, submit: typeLines, quit: []byte{4}, continueText: "continue"}
	}
}

// profileArgs adds what a CLI needs under a supervisor to its argv.
func profileArgs(name string, argv []string) []string {
	return argv
}

// typeLines submits text to a line-oriented program: the lines, then Enter.
func typeLines(text string) [][]byte {
	return [][]byte{[]byte(sanitize(text) + "\n")}
}

// pasteThenEnter submits text to a TUI: a bracketed paste, then Enter as a
// write of its own (the pause between them is the caller's).
func pasteThenEnter(text string) [][]byte {
	return [][]byte{[]byte("\x1b[200~" + sanitize(text) + "\x1b[201~"), []byte("\r")}
}

// sanitize removes control characters from text warden types (an escape in
// a task prompt must not drive the agent's terminal), keeping newlines and tabs.
func sanitize(text string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return -1
		}
		return r
	}, strings.ReplaceAll(text, "\r\n", "\n"))
}
