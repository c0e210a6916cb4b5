package fakeagent

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Modes that answer CHECKPOINT REQUEST lines (added by the protocol package):
//
//	answer[:same]      plain: print "ready", read stdin lines (tty echo stays on);
//	                   on "CHECKPOINT REQUEST: X" print a valid block for X (progress
//	                   10, 20, …; with "same" always the same block); on "complete"
//	                   print "CHECKPOINT COMPLETE"; on "quit" or end of input exit 0
//	tui-answer[:same]  the same, drawn like a TUI: raw mode, alternate screen, a
//	                   composer box that echoes typed text, a title and a spinner
//	                   (OSC 0 with ✳), words placed with cursor moves instead of
//	                   spaces, partial frames, the whole screen repainted 10 times
//	                   per answer, items hard-wrapped at the terminal width; it asks
//	                   the terminal for device attributes at start; on SIGWINCH
//	                   it redraws the whole screen at the new size, as the real
//	                   TUIs do
func init() {
	Register("answer", modeAnswer)
	Register("tui-answer", modeTUIAnswer)
}

// AnswerBlock is the block the answer modes print for task on their n-th
// answer (n from 1); same keeps n at 1.
func AnswerBlock(task string, n int) []string {
	return []string{
		"CHECKPOINT: " + task,
		"Status: implementing",
		"Completed:",
		"- wrote the parser for the checkpoint blocks that agents print, with a table of tests",
		"Remaining:",
		"- wire the reader",
		"Files Modified: protocol/parser.go, protocol/reader.go",
		fmt.Sprintf("Estimated Progress: %d%%", min(10*n, 100)),
		"Notes: answer number " + fmt.Sprint(n) + " from the fake agent, long enough to be wrapped by a narrow terminal window",
	}
}

// requestTask is the task id of a "CHECKPOINT REQUEST: T060 (reminder…)" line.
func requestTask(line string) (string, bool) {
	after, ok := strings.CutPrefix(strings.TrimSpace(line), "CHECKPOINT REQUEST:")
	f := strings.Fields(after)
	if !ok || len(f) == 0 {
		return "", false
	}
	return f[0], true
}

func modeAnswer(args []string) int {
	same := len(args) > 0 && args[0] == "same"
	write([]byte("ready\n"))
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if task, ok := requestTask(line); ok {
			if !same {
				n++
			}
			block, end := loggedBlock(task, max(n, 1))
			write([]byte("Working on it.\n" + strings.Join(block, "\n") + "\n\n"))
			end()
			continue
		}
		switch line {
		case "complete":
			write([]byte("CHECKPOINT COMPLETE\n"))
		case "quit":
			return 0
		}
	}
	return 0
}

// tui is the fake TUI's state: a transcript and a composer on the alt screen.
type tui struct {
	rows, cols int
	transcript []string
	composer   string
	pasting    bool // inside a bracketed paste
}

// key takes one byte the TUI read, as the real TUIs do: an escape sequence
// (a reply, or a bracketed-paste marker) is skipped, a pasted newline is
// text, a printable byte goes into the composer. On Enter it returns the
// composer's text, trimmed, and empties it (enter true).
func (t *tui) key(c byte, in *bufio.Reader) (line string, enter bool) {
	switch {
	case c == 0x1b:
		switch skipEscape(in) {
		case "[200~":
			t.pasting = true
		case "[201~":
			t.pasting = false
		}
	case t.pasting && (c == '\r' || c == '\n'):
		t.composer += " "
	case c == '\r' || c == '\n':
		line = strings.TrimSpace(t.composer)
		t.composer = ""
		return line, true
	case c >= 0x20:
		t.composer += string(c)
		write([]byte(t.composerRow()))
	}
	return "", false
}

func (t *tui) frame(spin string) {
	var b strings.Builder
	b.WriteString("\x1b[?2026h\x1b[H")
	top := t.rows - 4 // rows for the transcript; 4 for the composer and footer
	view := t.transcript
	if len(view) > top {
		view = view[len(view)-top:]
	}
	for i := range top {
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K", i+1)
		if i < len(view) {
			b.WriteString(spaced(view[i]))
		}
	}
	// The composer as Claude Code draws it: a "❯ " row between two rules,
	// and a footer that says whether a turn runs.
	bar := strings.Repeat("─", max(t.cols, 1))
	fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K%s", t.rows-3, bar)
	b.WriteString(t.composerRow())
	fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K%s", t.rows-1, bar)
	if spin != "" {
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K  %s fake tui · esc to interrupt", t.rows, spin)
	}
	b.WriteString("\x1b[?2026l")
	write([]byte(b.String()))
}

// composerRow draws the input line: the tail of what was typed, clipped to
// the box.
func (t *tui) composerRow() string {
	r := []rune(t.composer)
	if w := t.cols - 4; len(r) > w {
		r = r[len(r)-w:]
	}
	footer := "" // Claude shows its shortcut hint only while the box is empty
	if len(r) == 0 {
		footer = "  ? for shortcuts"
	}
	return fmt.Sprintf("\x1b[%d;1H\x1b[2K❯ %s\x1b[%d;1H\x1b[2K%s", t.rows-2, string(r), t.rows, footer)
}

// spaced draws s with each run of spaces replaced by a cursor move (CHA), as
// Claude Code's renderer does.
func spaced(s string) string {
	var b strings.Builder
	col := 1
	for i, w := range strings.Split(s, " ") {
		if i > 0 {
			col++
			if w != "" {
				fmt.Fprintf(&b, "\x1b[%dG", col)
			}
		}
		b.WriteString("\x1b[38;5;252m" + w + "\x1b[39m")
		col += len([]rune(w))
	}
	return b.String()
}

// wrap hard-wraps s at width with a two-space hanging indent.
func wrap(s string, width int) []string {
	var out []string
	for len([]rune(s)) > width {
		r := []rune(s)
		cut := strings.LastIndex(string(r[:width]), " ")
		if cut <= 2 {
			cut = len(string(r[:width]))
		}
		out = append(out, s[:cut])
		s = "  " + strings.TrimLeft(s[cut:], " ")
	}
	return append(out, s)
}

func modeTUIAnswer(args []string) int {
	same := len(args) > 0 && args[0] == "same"
	t, restore := newTUI(8)
	defer restore()
	write([]byte("\x1b[?1049h\x1b[?2004h\x1b[c\x1b]0;\u2733 fake tui\x07\x1b[2J"))
	t.transcript = []string{"ready"}
	t.frame("")
	var mu sync.Mutex // one frame at a time: the input's, or a resize's
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	go func() {
		for range winch {
			mu.Lock()
			if ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ); err == nil && ws.Row >= 8 && ws.Col >= 20 {
				t.rows, t.cols = int(ws.Row), int(ws.Col)
			}
			t.frame("")
			mu.Unlock()
		}
	}()
	n := 0
	in := bufio.NewReader(os.Stdin)
	for {
		c, err := in.ReadByte()
		if err != nil {
			break
		}
		mu.Lock()
		line, enter := t.key(c, in)
		if !enter || line == "" {
			mu.Unlock()
			continue
		}
		t.transcript = append(t.transcript, "")
		t.transcript = append(t.transcript, wrap("> "+line, t.cols-4)...)
		if line == "quit" {
			write([]byte("\x1b[?2004l\x1b[?1049l"))
			return 0
		}
		if task, ok := requestTask(line); ok {
			if !same {
				n++
			}
			block, end := loggedBlock(task, max(n, 1))
			t.answer(block)
			end()
		} else if line == "complete" {
			t.transcript = append(t.transcript, "", "⏺ CHECKPOINT COMPLETE")
		}
		t.frame("")
		mu.Unlock()
	}
	write([]byte("\x1b[?2004l\x1b[?1049l"))
	return 0
}

// newTUI puts the terminal in raw mode (no echo, no signals, CR kept) and
// sizes the screen from it (80x24 when it is smaller than minRows rows);
// restore puts the terminal back.
func newTUI(minRows int) (t *tui, restore func()) {
	restore = func() {}
	if old, err := unix.IoctlGetTermios(0, unix.TCGETS); err == nil {
		raw := *old
		raw.Lflag &^= unix.ECHO | unix.ICANON | unix.ISIG
		raw.Iflag &^= unix.ICRNL
		_ = unix.IoctlSetTermios(0, unix.TCSETS, &raw)
		restore = func() { _ = unix.IoctlSetTermios(0, unix.TCSETS, old) }
	}
	t = &tui{rows: 24, cols: 80}
	if ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ); err == nil && int(ws.Row) >= minRows && ws.Col >= 20 {
		t.rows, t.cols = int(ws.Row), int(ws.Col)
	}
	return t, restore
}

// answer streams the block into the transcript: a spinner, then each line
// drawn first half-way and then whole, then ten full repaints.
func (t *tui) answer(block []string) {
	for i, s := range []string{"⠋", "⠙", "⠹"} {
		write([]byte(fmt.Sprintf("\x1b]0;%s working %d\x07", s, i)))
		t.frame(s + " Thinking…")
	}
	t.transcript = append(t.transcript, "")
	for i, l := range block {
		prefix := "  "
		if i == 0 {
			prefix = "⏺ "
		}
		l = strings.Replace(l, "- ", "• ", 1)
		wrapped := wrap(prefix+l, t.cols-4)
		first := []rune(wrapped[0])
		half := string(first[:len(first)/2])
		t.transcript = append(t.transcript, half)
		t.frame("⠸")
		t.transcript = append(t.transcript[:len(t.transcript)-1], wrapped...)
		t.frame("⠼")
		time.Sleep(time.Millisecond)
	}
	for range 10 {
		write([]byte("\x1b[2J"))
		t.frame("")
	}
}

// skipEscape reads the rest of an escape sequence and returns it ("[200~").
func skipEscape(in *bufio.Reader) string {
	c, err := in.ReadByte()
	if err != nil || c != '[' {
		return ""
	}
	seq := []byte{c}
	for {
		c, err := in.ReadByte()
		if err != nil {
			return string(seq)
		}
		seq = append(seq, c)
		if c >= 0x40 && c <= 0x7e {
			return string(seq)
		}
	}
}
