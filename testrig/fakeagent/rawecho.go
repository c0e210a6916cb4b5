package fakeagent

import (
	"os"
	"strconv"

	"github.com/charmbracelet/x/term"
)

// rawecho: put the terminal in raw mode, as the agent TUIs do, print
// "ready", and echo every byte it reads back at once (an application-level
// echo, like a TUI's input box); exit 0 on Ctrl-D. For keystroke latency
// benchmarks.
func init() { Register("rawecho", modeRawEcho) }

// rawecho writes back what it reads; rawecho:query first asks the terminal
// for its attributes (DA1, as Gemini CLI does) and writes back what it reads
// quoted, so that an answer shows in its output as text.
func modeRawEcho(args []string) int {
	if state, err := term.MakeRaw(os.Stdin.Fd()); err == nil {
		defer term.Restore(os.Stdin.Fd(), state)
	}
	write([]byte("ready\r\n"))
	quoted := len(args) > 0 && args[0] == "query"
	if quoted {
		write([]byte("\x1b[c"))
	}
	buf := make([]byte, 256)
	for {
		n, err := os.Stdin.Read(buf)
		for _, c := range buf[:n] {
			if c == 4 {
				return 0
			}
		}
		if n > 0 && quoted {
			write([]byte(strconv.Quote(string(buf[:n])) + "\r\n"))
		} else if n > 0 {
			write(buf[:n])
		}
		if err != nil {
			return 0
		}
	}
}
