//go:build e2e

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

// userTerminal is a pty the test owns, with warden wrap running in it as
// in a user's terminal.
type userTerminal struct {
	cmd *exec.Cmd
	pty *os.File
	mu  sync.Mutex
	out bytes.Buffer
	eof chan struct{}
}

func startWrap(t *testing.T, mode string, args ...string) *userTerminal {
	t.Helper()
	argv := append(append([]string{"wrap", "--state-dir", t.TempDir()}, args...), "--")
	// The agent is this test binary too: env(1) gives it its fake-agent
	// mode and takes away the variable that makes the binary warden.
	argv = append(argv, "env", "-u", "WARDEN_TEST_MAIN", fakeagent.EnvMode+"="+mode)
	argv = append(argv, fakeagent.Command(mode)...)
	cmd := warden(argv...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	u := &userTerminal{cmd: cmd, pty: f, eof: make(chan struct{})}
	go func() {
		defer close(u.eof)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			u.mu.Lock()
			u.out.Write(buf[:n])
			u.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return u
}

func (u *userTerminal) waitFor(t *testing.T, text string) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		u.mu.Lock()
		ok := strings.Contains(u.out.String(), text)
		u.mu.Unlock()
		if ok {
			return
		}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	t.Fatalf("the user's terminal never showed %q:\n%q", text, u.out.String())
}

func (u *userTerminal) wait(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- u.cmd.Wait() }()
	select {
	case err := <-done:
		u.pty.Close()
		return exitCode(err)
	case <-time.After(20 * time.Second):
		u.cmd.Process.Kill()
		u.mu.Lock()
		defer u.mu.Unlock()
		t.Fatalf("warden wrap did not exit; terminal:\n%q", u.out.String())
		return -1
	}
}

func TestWrapReturnsTheAgentsExitCode(t *testing.T) {
	defer proctest.AssertNone(t)
	u := startWrap(t, "exit:3")
	if code := u.wait(t); code != 3 {
		t.Fatalf("warden wrap exited %d, want the agent's 3", code)
	}
	u.waitFor(t, "exiting with code 3")
}

func TestWrapIsTransparentAndRecordsCheckpoints(t *testing.T) {
	defer proctest.AssertNone(t)
	u := startWrap(t, "answer", "--name", "me", "--task", "T9")
	u.waitFor(t, "ready")
	// The user types: every keystroke reaches the agent, its echo comes back.
	u.pty.Write([]byte("hello agent\r"))
	u.waitFor(t, "hello agent")
	// The user asks for a checkpoint; the agent answers on the screen and
	// warden records it underneath.
	u.pty.Write([]byte("CHECKPOINT REQUEST: T9\r"))
	u.waitFor(t, "Estimated Progress: 10%")
	u.pty.Write([]byte("quit\r"))
	if code := u.wait(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	cp, err := os.ReadFile(filepath.Join(u.cmd.Args[3], "checkpoints", "me-T9.json"))
	if err != nil || !bytes.Contains(cp, []byte(`"progress_percent": 10`)) {
		u.mu.Lock()
		t.Fatalf("checkpoint under the wrapped agent: %s %v\nterminal: %q", cp, err, u.out.String())
	}
	log, _ := os.ReadFile(filepath.Join(u.cmd.Args[3], "logs", "warden.log"))
	if !bytes.Contains(log, []byte("team starting")) {
		t.Errorf("warden's log is not in the state dir:\n%s", log)
	}
}

func TestWrapFollowsTheWindowSize(t *testing.T) {
	defer proctest.AssertNone(t)
	u := startWrap(t, "winsize")
	u.waitFor(t, "size 40 120") // the agent starts at the user's size, not 50x200
	pty.Setsize(u.pty, &pty.Winsize{Rows: 30, Cols: 100})
	u.waitFor(t, "size 30 100")
	// Ctrl-C passes through to the agent (the user's terminal is raw): it
	// dies of SIGINT, and warden exits as a shell would report that, 130.
	u.pty.Write([]byte{3})
	if code := u.wait(t); code != 130 {
		t.Fatalf("exit %d, want 130 (the agent's SIGINT)", code)
	}
}
