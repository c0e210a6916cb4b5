package fakeagent

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// floodblocks:n=N:ignore=1:done=FILE — a hostile or broken agent: once its
// first prompt is in ("Your task: X"), it prints N distinct valid blocks for
// X unasked (each a different step and progress), as fast as the pty takes
// them, then creates FILE (if given) and stays, reading its input. ignore=1:
// SIGTERM, SIGINT and SIGHUP are ignored and the end of input does not end
// it (only SIGKILL does).
func init() {
	Register("floodblocks", modeFloodBlocks)
	Register("lateblock", modeLateBlock)
}

// options parses key=value parameters.
func options(args []string, defaults map[string]string) map[string]string {
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok {
			defaults[k] = v
		}
	}
	return defaults
}

func modeFloodBlocks(args []string) int {
	opt := options(args, map[string]string{"n": "1000"})
	n, _ := strconv.Atoi(opt["n"])
	if opt["ignore"] == "1" {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	task, ended := waitTask(in)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	for i := 1; i <= n; i++ {
		fmt.Fprint(out, FloodBlock(task, i))
	}
	if err := out.Flush(); err != nil {
		return 99
	}
	if f := opt["done"]; f != "" {
		os.WriteFile(f, []byte("done\n"), 0o600)
	}
	<-ended // stay until stopped
	if opt["ignore"] == "1" {
		for {
			time.Sleep(time.Hour)
		}
	}
	return 0
}

// FloodBlock is the i-th block of a flood: valid, and distinct from every
// other i.
func FloodBlock(task string, i int) string {
	return fmt.Sprintf("CHECKPOINT: %s\nStatus: implementing\nCompleted:\n- step %d\nRemaining:\n- the rest\n"+
		"Files Modified: a.go\nEstimated Progress: %d%%\n\n", task, i, i%100)
}

// waitTask reads input until the first prompt's "Your task: X" line, then
// until the prompt is all in, and returns X ("" at the end of input). A
// long prompt reaches a plain terminal in pieces (the tty's line buffer
// holds 4 KiB), each echoed as it comes: an answer printed at the "Your
// task:" line would interleave with the echo of the rest, as no agent's
// does. The rest is in once no line came for promptQuiet. From then on the
// input is read and dropped; ended is closed at its end.
func waitTask(in *bufio.Scanner) (task string, ended <-chan struct{}) {
	lines, end := make(chan string), make(chan struct{})
	go func() {
		defer close(end)
		defer close(lines)
		for in.Scan() {
			lines <- in.Text()
		}
	}()
	for task == "" {
		line, ok := <-lines
		if !ok {
			return "", end
		}
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "Your task:") {
			task = taskOf(line)
		}
	}
	for {
		select {
		case _, ok := <-lines:
			if !ok {
				return task, end
			}
		case <-time.After(promptQuiet):
			go func() {
				for range lines {
				}
			}()
			return task, end
		}
	}
}

// promptQuiet is how long no input line means the first prompt is all in.
const promptQuiet = 300 * time.Millisecond

// lateblock:pause=D:tui=1 — an agent whose answer stalls half-way: once its
// first prompt is in, it prints a block's required lines, waits D (Go
// duration, default 1.5s), then prints the optional lines (Blockers:,
// Notes:, Resume:, a seed line and an extra Key: value line), and stays. With tui=1 it is the fake TUI of tui-answer
// (raw mode, alternate screen, composer box): the answer goes into its
// transcript, the optional lines below the rest after the pause.
func modeLateBlock(args []string) int {
	opt := options(args, map[string]string{"pause": "1500ms"})
	pause, _ := time.ParseDuration(opt["pause"])
	if opt["tui"] == "1" {
		return lateTUI(pause)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	task, ended := waitTask(in)
	first, second := LateBlock(task)
	write([]byte(strings.Join(first, "\n") + "\n"))
	time.Sleep(pause)
	write([]byte(strings.Join(second, "\n") + "\n\n"))
	<-ended // stay until stopped
	return 0
}

// lateTUI is lateblock drawn by the fake TUI.
func lateTUI(pause time.Duration) int {
	t, restore := newTUI(8)
	defer restore()
	write([]byte("\x1b[?1049h\x1b[?2004h\x1b[2J"))
	t.transcript = []string{"ready"}
	t.frame("")
	in := bufio.NewReader(os.Stdin)
	answered := false
	for {
		c, err := in.ReadByte()
		if err != nil {
			return 0
		}
		line, enter := t.key(c, in)
		if !enter {
			continue
		}
		i := strings.Index(line, "Your task:")
		if line == "" || i < 0 || answered {
			t.frame("")
			continue
		}
		answered = true
		t.transcript = append(t.transcript, "", "> Work.")
		first, second := LateBlock(taskOf(line[i:]))
		t.transcript = append(t.transcript, "")
		for j, l := range first {
			if j == 0 {
				l = "⏺ " + l
			} else {
				l = "  " + l
			}
			t.transcript = append(t.transcript, l)
		}
		t.frame("")
		time.Sleep(pause)
		for _, l := range second {
			t.transcript = append(t.transcript, "  "+l)
		}
		t.frame("")
	}
}

// LateBlock is lateblock's answer: the required lines, and the optional
// lines that come after the pause.
func LateBlock(task string) (required, optional []string) {
	return []string{"CHECKPOINT: " + task, "Status: implementing", "Completed:", "- the parser", "Remaining:",
			"- the tests", "Files Modified: parser.go", "Estimated Progress: 40%"},
		[]string{"Blockers:", "- the fixture server is down", "Notes: late lines matter", "Resume: run the tests first",
			"Phase: testing", "Confidence: high"}
}
