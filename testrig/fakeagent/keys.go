package fakeagent

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// tui-keys:FILE[:N] draws like tui-answer and tells a test how text reached
// it. It first draws only "loading", and its input box once FILE.show
// exists (a test decides when the CLI is ready). It appends to FILE, a line
// each: "READ <quoted bytes>" for every read of its input (so a write that
// arrives on its own is a read of its own), "IGNORED ENTER" for each of the
// first N Enters (default 0), which it drops with the text left in its box
// as a CLI slow to take it does (a paste is drawn in the box once, at its
// end), "LINE <start>" for every line it takes,
// and "ANSWERED" once it has drawn the block it answers a line with: the
// block of tui-answer for the task of a "Your task: X" or a checkpoint
// request line.
func init() { Register("tui-keys", modeTUIKeys) }

// loggedInput logs every read of its reader to a file.
type loggedInput struct {
	r    io.Reader
	logf func(format string, a ...any)
}

func (l loggedInput) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.logf("READ %s", strconv.Quote(string(p[:n])))
	}
	return n, err
}

func modeTUIKeys(args []string) int {
	if len(args) == 0 || args[0] == "" {
		fmt.Fprintln(os.Stderr, "fakeagent: tui-keys needs a file")
		return 98
	}
	file, ignore := args[0], intArg(args, 1, 0)
	logf := func(format string, a ...any) {
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err == nil {
			fmt.Fprintf(f, format+"\n", a...)
			f.Close()
		}
	}
	t, restore := newTUI(8)
	defer restore()
	write([]byte("\x1b[?1049h\x1b[?2004h\x1b[2J\x1b[Hloading"))
	for {
		if _, err := os.Stat(file + ".show"); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.transcript = []string{"ready"}
	write([]byte("\x1b[2J"))
	t.frame("")
	in := bufio.NewReader(loggedInput{r: os.Stdin, logf: logf})
	n := 0
	for {
		c, err := in.ReadByte()
		if err != nil {
			break
		}
		if t.pasting && c >= 0x20 {
			t.composer += string(c) // a paste is drawn once, at its end, as the CLIs draw it
			continue
		}
		pasting := t.pasting
		line, enter := t.key(c, in)
		if pasting && !t.pasting {
			write([]byte(t.composerRow()))
		}
		if !enter {
			continue
		}
		if ignore > 0 {
			ignore--
			t.composer = line // dropped: the text stays in the box
			logf("IGNORED ENTER")
			continue
		}
		if line == "" {
			continue
		}
		logf("LINE %s", firstWords(line))
		t.transcript = append(t.transcript, "", "> "+firstWords(line))
		task, ok := requestTask(line)
		if m := yourTask.FindStringSubmatch(line); m != nil {
			task, ok = m[1], true
		}
		if !ok {
			t.frame("")
			continue
		}
		n++
		t.answer(AnswerBlock(task, n))
		logf("ANSWERED")
	}
	write([]byte("\x1b[?2004l\x1b[?1049l"))
	return 0
}
