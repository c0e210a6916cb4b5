//go:build e2e

package protocol

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

// agentSession runs a fake agent under a real pty, feeding a Reader, and
// calling Quiet after 100 ms without output, as the supervisor would.
type agentSession struct {
	t    *testing.T
	cmd  *exec.Cmd
	ptmx *os.File
	r    *Reader
	c    *collector
	done chan struct{}
}

func startAgent(t *testing.T, mode string, m Mode) *agentSession {
	t.Helper()
	argv := fakeagent.Command(mode)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), fakeagent.Env(mode)...)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 80})
	if err != nil {
		t.Fatalf("start %s: %v", mode, err)
	}
	s := &agentSession{t: t, cmd: cmd, ptmx: ptmx, c: newCollector(), done: make(chan struct{})}
	opts := s.c.options(m, 80, 50)
	opts.Reply = func(p []byte) { _, _ = ptmx.Write(p) }
	s.r = NewReader(testLogger(t), opts)
	chunks := make(chan []byte, 64)
	go func() {
		defer close(chunks)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				chunks <- append([]byte(nil), buf[:n]...)
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		defer close(s.done)
		quiet := time.NewTimer(time.Hour)
		for {
			select {
			case p, ok := <-chunks:
				if !ok {
					s.r.Flush()
					return
				}
				_, _ = s.r.Write(p)
				quiet.Reset(100 * time.Millisecond)
			case <-quiet.C:
				s.r.Quiet()
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = ptmx.Close()
		<-s.done
		_ = cmd.Wait()
		proctest.AssertNone(t)
	})
	return s
}

// typeLine types text the way warden does: tell the Reader, write, then Enter.
func (s *agentSession) typeLine(text string) {
	s.r.Typed(text)
	if _, err := s.ptmx.Write([]byte(text)); err != nil {
		s.t.Fatalf("type: %v", err)
	}
	if _, err := s.ptmx.Write([]byte("\r")); err != nil {
		s.t.Fatalf("type enter: %v", err)
	}
}

// waitBlocks waits until n blocks have been reported (or 10 s pass).
func (s *agentSession) waitBlocks(n int) {
	s.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if b, _, _ := s.c.counts(); b >= n {
			return
		}
		select {
		case <-s.c.notify:
		case <-deadline:
			s.t.Fatalf("timed out waiting for %d blocks", n)
		}
	}
}

// finish asks the agent to quit and waits for its output to end.
func (s *agentSession) finish() {
	s.t.Helper()
	s.typeLine("quit")
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.t.Fatal("agent did not exit")
	}
	var ee *exec.ExitError
	if err := s.cmd.Wait(); err != nil && !errors.As(err, &ee) {
		s.t.Fatalf("wait: %v", err)
	}
	if ws, ok := s.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.ExitStatus() != 0 {
		s.t.Fatalf("agent exit status %d", ws.ExitStatus())
	}
}

func TestPtyAnswerModes(t *testing.T) {
	for _, tc := range []struct {
		mode string
		m    Mode
		same bool
	}{
		{"answer", ModeLines, false},
		{"answer:same", ModeLines, true},
		{"tui-answer", ModeScreen, false},
		{"tui-answer:same", ModeScreen, true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			s := startAgent(t, tc.mode, tc.m)
			s.typeLine(Preamble(Task{ID: "T7", Title: "fake work"}))
			s.typeLine(Request("T7"))
			s.waitBlocks(1)
			s.typeLine(Request("T7"))
			s.waitBlocks(2)
			s.finish()
			s.c.expect(t, 2, 0, 0)
			for i, b := range s.c.blocks {
				n := i + 1
				if tc.same {
					n = 1
				}
				want := fakeagent.AnswerBlock("T7", n)
				got := []string{"CHECKPOINT: " + b.Task, "Status: " + b.Status, "Completed:", "- " + strings.Join(b.Completed, ""),
					"Remaining:", "- " + strings.Join(b.Remaining, ""), "Files Modified: " + strings.Join(b.FilesModified, ", "),
					"Estimated Progress: " + itoa(b.Progress) + "%", "Notes: " + b.Notes}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("block %d:\ngot  %q\nwant %q", i, got, want)
				}
			}
		})
	}
}

func TestMain(m *testing.M) {
	fakeagent.Main()
	os.Exit(m.Run())
}
