package fakeagent

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// tui-verify:DIR draws like tui-answer and acts out a task whose verify
// takes a while, driven by files a test writes into DIR. What it sees goes
// into DIR/log, a line each: "LINE <start>" for every line submitted,
// "DIALOG" when it draws its dialog, "TYPED <quoted byte>" for anything typed
// while the dialog is up, "FEEDBACK" when it is told its verify failed.
//
//   - Its first prompt ("… Your task: T1 …") is answered at once with a
//     block that says the task is complete (100%).
//   - When DIR/dialog appears it draws Claude Code's approval dialog
//     (DialogRows) in place of its input box.
//   - When DIR/answered appears it takes the dialog down (a person answered
//     it) and does what the file says: a status ("implementing",
//     "complete"…) answers with a new block of that status; "exit" exits 0.
//   - A line "VERIFY FAILED …" creates DIR/fixed (fixing the work) and
//     answers with a new complete block.
//   - A checkpoint request is answered with its last status; "/exit" ends it.
func init() { Register("tui-verify", modeTUIVerify) }

var yourTask = regexp.MustCompile(`Your task: ([^\s.]+)`)

// verifyAgent is the state of tui-verify, shared by its input and the
// watch on DIR.
type verifyAgent struct {
	mu     sync.Mutex
	t      *tui
	dir    string
	task   string
	status string
	n      int // blocks answered
	dialog bool
}

func modeTUIVerify(args []string) int {
	if len(args) == 0 || args[0] == "" {
		fmt.Fprintln(os.Stderr, "fakeagent: tui-verify needs a dir")
		return 98
	}
	t, restore := newTUI(16)
	defer restore()
	v := &verifyAgent{t: t, dir: args[0]}
	write([]byte("\x1b[?1049h\x1b[?2004h\x1b[2J"))
	t.transcript = []string{"ready"}
	t.frame("")
	exit := make(chan struct{})
	go v.watch(exit)
	keys := make(chan struct{})
	go func() {
		v.read(bufio.NewReader(os.Stdin))
		close(keys)
	}()
	select {
	case <-keys:
	case <-exit:
	}
	v.mu.Lock() // no frame after the last one
	write([]byte("\x1b[?2004l\x1b[?1049l"))
	return 0
}

func (v *verifyAgent) logf(format string, a ...any) {
	f, err := os.OpenFile(filepath.Join(v.dir, "log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err == nil {
		fmt.Fprintf(f, format+"\n", a...)
		f.Close()
	}
}

// read takes the keys warden (or a person) types until the end of input
// or "/exit".
func (v *verifyAgent) read(in *bufio.Reader) {
	for {
		c, err := in.ReadByte()
		if err != nil {
			return
		}
		v.mu.Lock()
		if v.dialog {
			v.logf("TYPED %q", c)
			v.mu.Unlock()
			continue
		}
		line, enter := v.t.key(c, in)
		if enter && line != "" && v.submitted(line) {
			v.mu.Unlock()
			return
		}
		v.mu.Unlock()
	}
}

// submitted acts on a line submitted at the input box; it reports whether
// the agent exits.
func (v *verifyAgent) submitted(line string) bool {
	v.logf("LINE %s", firstWords(line))
	v.t.transcript = append(v.t.transcript, "", "> "+firstWords(line))
	switch m := yourTask.FindStringSubmatch(line); {
	case line == "/exit":
		return true
	case strings.HasPrefix(line, "VERIFY FAILED"):
		v.logf("FEEDBACK")
		os.WriteFile(filepath.Join(v.dir, "fixed"), []byte("fixed\n"), 0o600)
		v.answer("complete")
	case m != nil && v.task == "":
		v.task = m[1]
		v.answer("complete")
	default:
		if _, ok := requestTask(line); ok && v.status != "" {
			v.answer(v.status)
			return false
		}
		v.t.frame("")
	}
	return false
}

// answer draws a new block of status.
func (v *verifyAgent) answer(status string) {
	v.n++
	v.status = status
	progress := 90
	if status == "complete" {
		progress = 100
	}
	v.t.answer([]string{
		"CHECKPOINT: " + v.task,
		"Status: " + status,
		"Completed:",
		fmt.Sprintf("- the work of answer %d", v.n),
		"Remaining:",
		"- nothing",
		"Files Modified: main.go",
		fmt.Sprintf("Estimated Progress: %d%%", progress),
	})
}

// watch draws the dialog when DIR/dialog appears and takes it down when
// DIR/answered does; exit is closed when the file says so.
func (v *verifyAgent) watch(exit chan struct{}) {
	wait := func(name string) string {
		for {
			if b, err := os.ReadFile(filepath.Join(v.dir, name)); err == nil {
				return strings.TrimSpace(string(b))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	wait("dialog")
	v.mu.Lock()
	v.dialog = true
	v.t.transcript = append(v.t.transcript, "", "● Probing a write", "  ⎿  $ curl -s http://127.0.0.1:9/probe > fetched.txt")
	v.t.dialogFrame(DialogRows)
	v.logf("DIALOG")
	v.mu.Unlock()
	what := wait("answered")
	v.mu.Lock()
	defer v.mu.Unlock()
	v.dialog = false
	v.t.transcript = append(v.t.transcript, "", "● Ran curl -s http://127.0.0.1:9/probe > fetched.txt")
	if what == "exit" {
		close(exit)
		return
	}
	v.t.frame("")
	v.answer(what)
}
