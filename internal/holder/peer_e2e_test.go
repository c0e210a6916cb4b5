//go:build e2e

package holder

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/proctest"
)

func init() {
	fakeagent.Register("hclient", modeClient)
	fakeagent.Register("hdial", modeDial)
}

// modeClient ("hclient" SOCKET ID LINE) is a warden in a process of its
// own: it adopts agent ID, reads its master up to "ready", types LINE,
// says "typed" on stdout and then reads nothing, until it is killed.
func modeClient(args []string) int {
	if len(args) != 3 {
		return 2
	}
	c, err := Dial(nil, args[0])
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	ads, err := c.Adopt(context.Background(), args[1])
	if err != nil || len(ads) != 1 || ads[0].Master == nil {
		os.Stderr.WriteString("adopt failed\n")
		return 1
	}
	got := ads[0].Output
	buf := make([]byte, 4096)
	for !strings.Contains(string(got), "ready\r\n") {
		n, err := ads[0].Master.Read(buf)
		if err != nil {
			return 1
		}
		got = append(got, buf[:n]...)
	}
	if _, err := ads[0].Master.Write([]byte(args[2] + "\r")); err != nil {
		return 1
	}
	os.Stdout.WriteString("typed\n")
	select {}
}

// modeDial ("hdial" SOCKET) connects and waits for the hello: exit 0 with
// it, 3 when the connection is closed without one, 4 when it cannot
// connect.
func modeDial(args []string) int {
	c, err := net.Dial("unix", args[0])
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 4
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	switch {
	case strings.Contains(line, `"hello"`):
		return 0
	case errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
		return 3
	default:
		return 5
	}
}

// startClientProcess runs modeClient and waits until it typed.
func startClientProcess(t *testing.T, socket, id, line string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(fakeagent.Command("hclient", socket, id, line)[0], fakeagent.Command("hclient", socket, id, line)[1:]...)
	cmd.Env = append(os.Environ(), fakeagent.Env("hclient")...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the client process: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	typed := make(chan bool, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		typed <- l == "typed\n"
	}()
	select {
	case ok := <-typed:
		if !ok {
			t.Fatal("the client process ended before it typed")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the client process did not type within 20 s")
	}
	return cmd
}

// A process of another user gets nothing: the socket's directory keeps it
// from connecting, and were the modes loosened, the peer check (SO_PEERCRED)
// closes its connection before the hello. Needs root, to run the test
// binary as nobody (uid 65534).
func TestAnotherUserIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a client as another user")
	}
	defer proctest.AssertNone(t)
	s := serve(t, nil)
	defer s.end(t)
	// The test binary where nobody may run it.
	dir, err := os.MkdirTemp("", "holdbin")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "holder.test")
	self, err := os.ReadFile(fakeagent.Command("hdial")[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	asNobody := func() int {
		cmd := exec.Command(bin, "-test.run=^$", s.socket)
		cmd.Env = append(os.Environ(), fakeagent.Env("hdial")...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		cmd.Stderr = os.Stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("run as nobody: %v", err)
		}
		return 0
	}
	if code := asNobody(); code != 4 {
		t.Errorf("nobody's client exited %d; want 4 (cannot connect through the 0700 directory)", code)
	}
	// Loosen the modes (of the test's temporary directory, the socket's and
	// the socket): the kernel's word on the peer still refuses it.
	for _, d := range []string{filepath.Dir(filepath.Dir(s.socket)), filepath.Dir(s.socket)} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(s.socket, 0o666); err != nil {
		t.Fatal(err)
	}
	if code := asNobody(); code != 3 {
		t.Errorf("nobody's client exited %d; want 3 (connection closed without a hello)", code)
	}
	// Our own user is still served.
	c := dial(t, s)
	if _, err := c.List(ctx(t)); err != nil {
		t.Errorf("List as our user: %v", err)
	}
}
