package fakeagent

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// blocks:N:GAP:FILE[:tui] — for latency benchmarks. It waits for its first
// prompt ("Your task: X"), then prints N distinct valid blocks for X unasked,
// GAP apart (Go duration), and after the last byte of each block appends the
// time (unix nanoseconds) to FILE. With "tui" it draws each block on the
// alternate screen with cursor moves, as a TUI would, instead of lines.
func init() { Register("blocks", modeBlocks) }

func modeBlocks(args []string) int {
	n := intArg(args, 0, 10)
	gap, _ := time.ParseDuration(argOr(args, 1, "50ms"))
	file := argOr(args, 2, "")
	tui := argOr(args, 3, "") == "tui"
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeagent: blocks:", err)
		return 1
	}
	defer f.Close()
	// A TUI shows its input box (as Claude Code draws it) before the prompt.
	composer := "\x1b[21;1H" + strings.Repeat("─", 80) + "\x1b[22;1H❯ \x1b[23;1H" + strings.Repeat("─", 80) +
		"\x1b[24;1H  ? for shortcuts\x1b[22;3H"
	if tui {
		echoOff() // a TUI draws its own input; the terminal does not echo
		write([]byte("\x1b[?1049h\x1b[?2004h\x1b[2J" + composer))
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	task := ""
	for task == "" && in.Scan() {
		if line := strings.TrimSpace(in.Text()); strings.HasPrefix(line, "Your task:") {
			task = taskOf(line)
		}
	}
	for i := 1; i <= n; i++ {
		time.Sleep(gap)
		lines := []string{"CHECKPOINT: " + task, "Status: implementing", "Completed:", fmt.Sprintf("- step %d", i),
			"Remaining:", "- the rest", "Files Modified: a.go", fmt.Sprintf("Estimated Progress: %d%%", i%101)}
		var b strings.Builder
		if tui {
			b.WriteString("\x1b[2J")
			for row, l := range lines {
				// "● " reply marker, then the words placed with cursor moves.
				fmt.Fprintf(&b, "\x1b[%d;1H", row+3)
				if row == 0 {
					b.WriteString("● ")
				} else {
					b.WriteString("  ")
				}
				for j, w := range strings.Fields(l) {
					if j > 0 {
						b.WriteString("\x1b[1C")
					}
					b.WriteString(w)
				}
			}
			b.WriteString(composer)
		} else {
			b.WriteString(strings.Join(lines, "\n") + "\n\n")
		}
		write([]byte(b.String()))
		f.WriteString(strconv.FormatInt(time.Now().UnixNano(), 10) + "\n")
	}
	for in.Scan() { // stay until stopped
	}
	return 0
}

func argOr(args []string, i int, def string) string {
	if i < len(args) && args[i] != "" {
		return args[i]
	}
	return def
}
