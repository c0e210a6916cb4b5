//go:build e2e

package holder

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/proctest"
)

func TestMain(m *testing.M) {
	fakeagent.Main()
	os.Exit(m.Run())
}

var testLog = hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: os.Stderr})

func init() {
	fakeagent.Register("hchat", modeChat)
}

// modeChat ("hchat") is an agent for the holder's tests: echo off, it
// prints "ready", then answers each input line: "burst N FILE" prints the
// N lines burstLine(1…N) then "burst done" and creates FILE (if named);
// "exit C" exits with C; any other line X is answered "got: X".
func modeChat([]string) int {
	if t, err := unix.IoctlGetTermios(0, unix.TCGETS); err == nil { // no echo: only what it writes is read
		t.Lflag &^= unix.ECHO
		_ = unix.IoctlSetTermios(0, unix.TCSETS, t)
	}
	os.Stdout.WriteString("ready\n")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		switch {
		case len(f) >= 2 && f[0] == "burst":
			n, _ := strconv.Atoi(f[1])
			w := bufio.NewWriterSize(os.Stdout, 4096)
			for i := 1; i <= n; i++ {
				w.WriteString(burstLine(i, "\n"))
			}
			w.WriteString("burst done\n")
			if err := w.Flush(); err != nil {
				return 99
			}
			if len(f) > 2 {
				os.WriteFile(f[2], []byte("done\n"), 0o600)
			}
		case len(f) == 2 && f[0] == "exit":
			code, _ := strconv.Atoi(f[1])
			return code
		default:
			fmt.Printf("got: %s\n", in.Text())
		}
	}
	return 0
}

// burstLine is line i of a burst: 30 bytes and its newline nl.
func burstLine(i int, nl string) string {
	return fmt.Sprintf("b %07d ...............................", i)[:30] + nl
}

// burst is what the master reads of "burst n": the pty turns "\n" into
// "\r\n".
func burst(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		b.WriteString(burstLine(i, "\r\n"))
	}
	b.WriteString("burst done\r\n")
	return b.Bytes()
}

// chat is the StartRequest of the hchat agent.
func chat() StartRequest {
	return StartRequest{Argv: fakeagent.Command("hchat"), Env: append(os.Environ(), fakeagent.Env("hchat")...), Rows: 24, Cols: 80}
}

// fake is the StartRequest of a fake agent mode.
func fake(mode string) StartRequest {
	return StartRequest{Argv: fakeagent.Command(mode), Env: append(os.Environ(), fakeagent.Env(mode)...)}
}

// served is a holder serving in the background.
type served struct {
	h      *Holder
	socket string
	cancel context.CancelFunc
	done   chan error
}

// serve starts a holder on a fresh socket (a short path: a unix socket's
// is at most 107 bytes); setup sets its fields. The holder is ended at the
// end of the test at the latest; a test that checks for leftovers with a
// deferred proctest.AssertNone defers s.end after it, so that the holder
// has ended when it checks.
func serve(t testing.TB, setup func(*Holder)) *served {
	t.Helper()
	dir, err := os.MkdirTemp("", "hold")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &served{socket: filepath.Join(dir, "s", "holder.sock"), done: make(chan error, 1)}
	s.h = New(testLog, s.socket)
	if setup != nil {
		setup(s.h)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() { s.done <- s.h.Serve(ctx) }()
	t.Cleanup(func() { s.end(t) })
	select {
	case <-s.h.Ready():
	case err := <-s.done:
		s.done <- err
		t.Fatalf("Serve: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatalf("holder on %s not ready after 10 s", s.socket)
	}
	return s
}

// end stops the holder and waits for Serve.
func (s *served) end(t testing.TB) error {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		s.done <- err
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("holder's Serve did not return 30 s after its end")
		return nil
	}
}

func dial(t testing.TB, s *served) *Client {
	t.Helper()
	c, err := Dial(testLog, s.socket)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// readUntil reads f until cond holds for what it read (appended to got),
// failing after 20 s.
func readUntil(t *testing.T, f *os.File, got []byte, what string, cond func([]byte) bool) []byte {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	buf := make([]byte, 32<<10)
	for !cond(got) {
		_ = f.SetReadDeadline(deadline)
		n, err := f.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil && !cond(got) {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("waiting for %s: nothing more after 20 s; read %d bytes, the last: %q", what, len(got), tail(got))
			}
			t.Fatalf("waiting for %s: %v; read %q", what, err, tail(got))
		}
	}
	return got
}

// readToEnd reads f to the end of its output (EIO once every slave is
// closed), failing after 20 s.
func readToEnd(t *testing.T, f *os.File, got []byte) []byte {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	buf := make([]byte, 32<<10)
	for {
		_ = f.SetReadDeadline(deadline)
		n, err := f.Read(buf)
		got = append(got, buf[:n]...)
		switch {
		case err == nil:
		case errors.Is(err, syscall.EIO) || errors.Is(err, io.EOF):
			return got
		default:
			t.Fatalf("read to the end: %v; read %q", err, tail(got))
		}
	}
}

func contains(s string) func([]byte) bool {
	return func(b []byte) bool { return bytes.Contains(b, []byte(s)) }
}

func tail(b []byte) []byte { return b[max(0, len(b)-200):] }

// zombies lists the children of this process that exited and were not
// reaped.
func zombies() []int {
	var out []int
	for _, pid := range proctest.Children(os.Getpid()) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if i := bytes.LastIndexByte(b, ')'); err == nil && i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
			out = append(out, pid)
		}
	}
	return out
}

// assertReaped fails when a child of this process is left unreaped.
func assertReaped(t testing.TB) {
	t.Helper()
	if !waitUntil(time.Now().Add(10*time.Second), func() bool { return len(zombies()) == 0 }) {
		var stats []string
		for _, pid := range zombies() {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			stats = append(stats, strings.Join(strings.Fields(string(b))[:8], " "))
		}
		t.Errorf("children left unreaped: %v", stats)
	}
}
