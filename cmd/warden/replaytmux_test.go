//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/wardenhq/warden/internal/proctest"
)

// warden replay in tmux: the recorded TUI's queries (DA, CPR, XTVERSION)
// are answered by the terminal on the player's stdin, tmux's XTVERSION
// with a space in it. The replay plays on to its end (it froze on its
// first frame, the answer's space taken for pause); a space the person
// types still pauses it and another resumes it.
func TestReplayInTmuxIsNotPausedByAnswers(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	writeCast(t, dir, "tui", "s1", 80, 24,
		0.0, "one\r\n\x1b[c\x1b[6n\x1b[>0q",
		0.3, "two\r\n",
		1.5, "three\r\n",
		1.8, "END\r\n")

	start := time.Now()
	p := startOnPty(t, warden("replay", "--state-dir", dir, "tui"), 80, 24, tmuxAnswers)
	if code := p.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("replay: exit %d:\n%q", code, p.output())
	}
	out := p.output()
	if strings.Count(out, "\x1b[>0q") != 1 || !strings.Contains(out, "END") {
		t.Fatalf("the replay did not play its queries and its end:\n%q", out)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("a 1.8 s recording took %v to replay", el)
	}

	p = startOnPty(t, warden("replay", "--state-dir", dir, "tui"), 80, 24, tmuxAnswers)
	p.waitFor(t, "two")
	p.f.Write([]byte(" ")) // pause
	time.Sleep(2500 * time.Millisecond)
	if strings.Contains(p.output(), "three") {
		t.Fatalf("a space typed did not pause the replay:\n%q", p.output())
	}
	p.f.Write([]byte(" ")) // resume
	if code := p.wait(t, 10*time.Second); code != 0 || !strings.Contains(p.output(), "END") {
		t.Fatalf("replay after resuming: exit %d:\n%q", code, p.output())
	}
}

// writeCast writes a recording of agent's session to the state dir: its
// header and output events (time in seconds, data).
func writeCast(t *testing.T, stateDir, agent, session string, cols, rows int, events ...any) {
	t.Helper()
	logs := filepath.Join(stateDir, "logs")
	if err := os.MkdirAll(logs, 0o700); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"version":2,"width":%d,"height":%d,"timestamp":%d,"title":"test"}`+"\n", cols, rows, time.Now().Unix())
	for i := 0; i+1 < len(events); i += 2 {
		data, _ := json.Marshal(events[i+1])
		fmt.Fprintf(&b, "[%v, \"o\", %s]\n", events[i], data)
	}
	if err := os.WriteFile(filepath.Join(logs, agent+"-"+session+".cast"), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// ptyTerm is a command in a terminal of its own (stdin, stdout, stderr on
// one pty) whose other side answers terminal queries as tmux does.
type ptyTerm struct {
	cmd     *exec.Cmd
	f       *os.File
	mu      sync.Mutex
	out     bytes.Buffer
	end     chan error
	drained chan struct{}
}

// tmuxAnswers are what tmux 3.4 answers to queries a TUI makes: its
// XTVERSION holds a space.
var tmuxAnswers = map[string]string{
	"\x1b[c":   "\x1b[?1;2;4c",
	"\x1b[6n":  "\x1b[12;1R",
	"\x1b[>0q": "\x1bP>|tmux 3.4\x1b\\",
}

func startOnPty(t *testing.T, cmd *exec.Cmd, cols, rows int, answers map[string]string) *ptyTerm {
	t.Helper()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		t.Fatal(err)
	}
	p := &ptyTerm{cmd: cmd, f: f, end: make(chan error, 1), drained: make(chan struct{})}
	go func() {
		defer close(p.drained)
		buf := make([]byte, 32<<10)
		answered := map[string]int{}
		for {
			n, err := f.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			seen := p.out.String()
			p.mu.Unlock()
			for q, a := range answers {
				for ; answered[q] < strings.Count(seen, q); answered[q]++ {
					f.Write([]byte(a))
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() { p.end <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		f.Close()
	})
	return p
}

func (p *ptyTerm) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func (p *ptyTerm) waitFor(t *testing.T, text string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(p.output(), text) {
			return
		}
	}
	t.Fatalf("the terminal never showed %q; it shows:\n%q", text, p.output())
}

// wait waits for the command's end, up to d; it returns its exit code.
func (p *ptyTerm) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case err := <-p.end:
		select {
		case <-p.drained:
		case <-time.After(2 * time.Second):
		}
		return exitCode(err)
	case <-time.After(d):
		p.cmd.Process.Kill()
		<-p.end
		t.Fatalf("still running after %v; the terminal shows:\n%q", d, p.output())
		return -1
	}
}
