package fakeagent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// tui-dialog:FILE draws like tui-answer, but its first prompt makes it ask
// for a shell command's approval the way Claude Code does in its default
// permission mode: a dialog in place of the composer, "1. Yes" preselected.
// What happens is appended to FILE, a line each: "DIALOG" when it is drawn,
// "APPROVED" on Enter (the command would run), "DENIED" on Esc, and
// "TYPED <quoted bytes>" for anything else typed while it is open;
// "DIALOG" carries the time it was drawn (Unix nanoseconds), and every line
// submitted outside the dialog is logged as "LINE <its start>".
//
// tui-dialog:FILE:hook draws a dialog in words no profile knows, and says
// so only the way Claude Code's PermissionRequest hook does: it runs
// "$WARDEN_BIN hook claude-permission-request" with the hook's JSON on stdin. After
// the dialog it answers checkpoint requests like tui-answer.
//
// tui-dialog:FILE:hook-first is tui-dialog:FILE:hook with the hook run
// before the dialog is drawn: what warden sees when it reads the pty later
// than the hook's socket (a loaded machine).
//
// tui-dialog:FILE:deaf draws the dialog before it listens for keys, as an
// Ink app does (its input hook attaches after the render): keys typed in
// the first deafFor after it is drawn are lost, each logged as "DEAF
// <quoted byte>".
//
// tui-dialog:FILE:hook-hostile is tui-dialog:FILE:hook with a command in
// the hook's payload that holds escape sequences (OSC 52 clipboard, C1 CSI
// clear screen, a window title, NUL, CR): none may reach warden's records.
func init() {
	Register("tui-dialog", modeTUIDialog)
}

// DialogRows is the dialog tui-dialog draws: Claude Code's rows (2.1.330 and
// 2.1.332 draw the same ones; 2.1.332 at the bottom of the screen).
var DialogRows = []string{
	" Bash command",
	" probe a write",
	" curl -s http://127.0.0.1:9/probe > fetched.txt",
	"",
	" Do you want to proceed?",
	" ❯ 1. Yes",
	"   2. Yes, and always allow access to proj from this project",
	"   4. No",
	"",
	" Esc to cancel · Tab to amend",
}

// HostileHookCommand is the command tui-dialog:FILE:hook-hostile's hook
// names: an OSC 52 that would set the clipboard, a C1
// CSI that would clear the screen, an OSC 0 window title, NUL and CR, and a
// right-to-left override and a zero-width space (U+202E, U+200B).
const HostileHookCommand = "curl \x1b]52;c;ZXZpbA==\x07evil\u009b2J\x1b]0;owned\x07\x00x\ry\u202etxt.exe\u200b"

// deafFor is how long tui-dialog:FILE:deaf loses keys after its dialog is
// drawn.
const deafFor = 800 * time.Millisecond

// HiddenDialogRows is the dialog tui-dialog:FILE:hook draws.
var HiddenDialogRows = []string{" Run curl -s http://127.0.0.1:9/probe > fetched.txt ?", "", " [y] yes   [n] no"}

func modeTUIDialog(args []string) int {
	viaHook := len(args) > 1 && (args[1] == "hook" || args[1] == "hook-hostile" || args[1] == "hook-first")
	hostile := viaHook && args[1] == "hook-hostile"
	hookFirst := viaHook && args[1] == "hook-first"
	deaf := len(args) > 1 && args[1] == "deaf"
	var drawn time.Time
	if len(args) == 0 || args[0] == "" {
		fmt.Fprintln(os.Stderr, "fakeagent: tui-dialog needs a file")
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
	var (
		mu    sync.Mutex // one frame at a time: the input's, or a resize's
		shown []string   // the dialog's rows while it is up
	)
	// On SIGWINCH it redraws its whole screen at the new size, the dialog
	// too, as Claude Code (Ink) does.
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	go func() {
		for range winch {
			mu.Lock()
			if ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ); err == nil && ws.Row >= 16 && ws.Col >= 20 {
				t.rows, t.cols = int(ws.Row), int(ws.Col)
			}
			if shown != nil {
				t.dialogFrame(shown)
			} else {
				t.frame("")
			}
			mu.Unlock()
		}
	}()
	asked, n := false, 0
	key := func(c byte, in *bufio.Reader) {
		mu.Lock()
		defer mu.Unlock()
		if shown != nil {
			switch {
			case deaf && time.Since(drawn) < deafFor:
				logf(fmt.Sprintf("DEAF %q", c))
			case c == '\r':
				logf("APPROVED")
				shown = nil
				t.transcript = append(t.transcript, "", "● Ran curl -s http://127.0.0.1:9/probe > fetched.txt")
				t.frame("")
			case c == 0x1b && in.Buffered() == 0: // a lone Esc
				logf("DENIED")
				shown = nil
				t.transcript = append(t.transcript, "", "  Did not run 1 call", "  ⎿  Interrupted · What should Claude do instead?")
				t.frame("")
			default:
				logf(fmt.Sprintf("TYPED %q", c))
			}
			return
		}
		line, enter := t.key(c, in)
		if !enter || line == "" {
			return
		}
		t.transcript = append(t.transcript, "", "> "+firstWords(line))
		logf("LINE " + firstWords(line))
		if task, ok := requestTask(line); ok {
			n++
			t.answer(AnswerBlock(task, n))
			return
		}
		if !asked {
			asked = true
			t.transcript = append(t.transcript, "", "● Probing a write", "  ⎿  $ curl -s http://127.0.0.1:9/probe > fetched.txt")
			shown = DialogRows
			if viaHook {
				shown = HiddenDialogRows
			}
			if hookFirst {
				permissionHook(false, logf)
			}
			t.dialogFrame(shown)
			drawn = time.Now()
			logf(fmt.Sprintf("DIALOG %d", drawn.UnixNano()))
			if viaHook && !hookFirst {
				permissionHook(hostile, logf)
			}
			return
		}
		t.frame("")
	}
	in := bufio.NewReader(os.Stdin)
	for {
		c, err := in.ReadByte()
		if err != nil {
			break
		}
		key(c, in)
	}
	write([]byte("\x1b[?2004l\x1b[?1049l"))
	return 0
}

// dialogFrame draws the transcript with the dialog below a rule, where the
// composer was.
func (t *tui) dialogFrame(rows []string) {
	var b strings.Builder
	b.WriteString("\x1b[?2026h\x1b[2J\x1b[H")
	top := t.rows - len(rows) - 1
	view := t.transcript
	if len(view) > top {
		view = view[len(view)-top:]
	}
	for i, l := range view {
		fmt.Fprintf(&b, "\x1b[%d;1H%s", i+1, spaced(l))
	}
	fmt.Fprintf(&b, "\x1b[%d;1H%s", top+1, strings.Repeat("─", t.cols))
	for i, l := range rows {
		fmt.Fprintf(&b, "\x1b[%d;1H%s", top+2+i, l)
	}
	b.WriteString("\x1b[?2026l")
	write([]byte(b.String()))
}

// firstWords is the start of a long line, for the transcript.
func firstWords(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// permissionHook runs warden's hook as Claude Code runs its PermissionRequest
// hook: the payload on stdin, warden's WARDEN_* variables in the environment.
// hostile puts escape sequences in the command.
func permissionHook(hostile bool, logf func(string)) {
	bin := os.Getenv("WARDEN_BIN")
	if bin == "" {
		fmt.Fprintln(os.Stderr, "fakeagent: tui-dialog:hook needs WARDEN_BIN")
		logf("HOOKERR no WARDEN_BIN")
		return
	}
	command := "curl -s http://127.0.0.1:9/probe > fetched.txt"
	if hostile {
		command = HostileHookCommand
	}
	cmd := exec.Command(bin, "hook", "claude-permission-request")
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"PermissionRequest","tool_name":"Bash",` +
		`"tool_input":{"command":` + jsonString(command) + `,"description":"probe a write"}}`)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeagent: hook:", err)
	}
	// What the hook did, for a test that never saw its message.
	logf(fmt.Sprintf("HOOK %s in %v: %v %q", bin, time.Since(start).Round(time.Millisecond), err, out))
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
