//go:build e2e

package profile

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/proctest"
)

func TestMain(m *testing.M) {
	fakeagent.Main()
	os.Exit(m.Run())
}

// fakeSession is the fake agent (this test binary in a helper mode) under
// a real pty, its output collected.
type fakeSession struct {
	cmd  *exec.Cmd
	ptmx *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

func startFake(t *testing.T, mode string) *fakeSession {
	t.Helper()
	t.Cleanup(func() { proctest.AssertNone(t) })
	argv := fakeagent.Command(mode)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), fakeagent.Env(mode)...)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 200, Rows: 50})
	if err != nil {
		t.Fatalf("start fake agent: %v", err)
	}
	f := &fakeSession{cmd: cmd, ptmx: ptmx, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			f.mu.Lock()
			f.out.Write(buf[:n])
			f.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = ptmx.Close()
		<-f.done
	})
	f.wait(t, "ready")
	return f
}

func (f *fakeSession) output() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.out.String()
}

func (f *fakeSession) wait(t *testing.T, text string) {
	t.Helper()
	if !waitUntil(10*time.Second, func() bool { return strings.Contains(f.output(), text) }) {
		t.Fatalf("%q not seen; output %q", text, f.output())
	}
}

// TestPlainSubmitAndQuit: a line-oriented program gets the text, control
// characters removed, as one line; Ctrl-D ends it.
func TestPlainSubmitAndQuit(t *testing.T) {
	p := mustProfile(t, "plain")
	f := startFake(t, "idle")
	if err := p.Submit(context.Background(), f.ptmx, nil, "hello\x1b[31m wor\x07ld"); err != nil {
		t.Fatal(err)
	}
	f.wait(t, "hello[31m world\r\n")
	for _, k := range p.Quit() {
		if _, err := f.ptmx.Write(k.Bytes); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.cmd.Wait(); err != nil {
		t.Fatalf("plain program did not end cleanly on Ctrl-D: %v", err)
	}
}

// TestSubmitNeverRetypes: when no turn ever starts (a raw-mode program that
// only echoes what it reads) and no input box is on the screen, Submit
// types the text once, bracketed, presses Enter once — with no box,
// something else may be drawn where it was, an unknown dialog whose
// preselected answer a second Enter would take —, never sends Ctrl-C, and
// says so.
func TestSubmitNeverRetypes(t *testing.T) {
	p := mustProfile(t, "gemini")
	p.EnterDelay, p.SubmitWindow = 10*time.Millisecond, 20*time.Millisecond
	f := startFake(t, "rawecho")
	screen := func() Screen { return staticScreen{bracketed: true} }
	text := "line one\nline two \x1b[201~ \x1b[31mred\r\nend"
	err := p.Submit(context.Background(), f.ptmx, screen, text)
	if !errors.Is(err, ErrNotSubmitted) || !strings.Contains(err.Error(), "no input box") {
		t.Fatalf("Submit = %v, want ErrNotSubmitted: no input box", err)
	}
	want := pasteStart + "line one\nline two [201~ [31mred\nend" + pasteEnd + "\r"
	f.wait(t, want)
	time.Sleep(100 * time.Millisecond) // a second Enter would be here by now
	if got := strings.TrimPrefix(f.output(), "ready\r\n"); got != want {
		t.Fatalf("the program got %q, want %q", got, want)
	}
}

// TestSubmitRepeatsEnterIntoItsBoxOnly: while the input box still holds
// text after Enter and no turn shows, Enter is pressed again, up to
// EnterTries in all (Claude Code's screens, recorded: its box empty, then
// holding text).
func TestSubmitRepeatsEnterIntoItsBoxOnly(t *testing.T) {
	rec := loadRecording(t, "claude", "checkpoint-200x50")
	ready, held := rec.screenAt(t, rec.Typed[0].Offset), rec.screenAt(t, rec.Typed[1].Offset)
	p := mustProfile(t, "claude")
	p.EnterDelay, p.SubmitWindow = 10*time.Millisecond, 20*time.Millisecond
	f := startFake(t, "rawecho")
	screen := func() Screen {
		if strings.Contains(f.output(), pasteEnd) {
			return held
		}
		return ready
	}
	// The text typed is the one the held box shows (Enter is pressed again
	// only into the box still holding it: issue 35).
	text := strings.TrimSuffix(strings.TrimPrefix(rec.Typed[0].Text, pasteStart), pasteEnd) // held shows it at the Enter (Typed[1])
	err := p.Submit(context.Background(), f.ptmx, screen, text)
	if !errors.Is(err, ErrNotSubmitted) || !strings.Contains(err.Error(), "Enter pressed 3 times") {
		t.Fatalf("Submit = %v, want ErrNotSubmitted after 3 Enters", err)
	}
	f.wait(t, pasteEnd+"\r\r\r")
}
