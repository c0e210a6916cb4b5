//go:build e2e

package codexapp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/internal/realcli"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
)

func TestMain(m *testing.M) {
	fakeCodex()
	fakeagent.Main()
	os.Exit(m.Run())
}

const probe = "curl -s http://127.0.0.1:9/probe > fetched.txt"

// shared is the real Codex's app-server on a unix socket with the stock TUI
// attached to it (codex --remote) in a pty, offline against the fake
// provider, whose first answer to "Create the probe file" is a shell call
// asking for escalation: Codex's approval dialog.
type shared struct {
	project, sock string
	srv           *fakeprovider.Server
	tui, server   *exec.Cmd
	pty           *os.File
	mu            sync.Mutex
	scr           protocol.Screen
}

func startShared(t testing.TB) *shared {
	bin, err := realcli.Bin("codex")
	if err != nil {
		t.Skip(err)
	}
	realcli.Hold(t)
	s := &shared{}
	s.srv = fakeprovider.New(hclog.NewNullLogger(), fakeprovider.Script{Decide: func(r fakeprovider.Request) fakeprovider.Answer {
		if strings.Contains(r.Prompt, "Create the probe file") && len(r.ToolResults) == 0 {
			return fakeprovider.Answer{Tool: &fakeprovider.ToolCall{Command: probe, Description: "Fetch the probe page into fetched.txt"}}
		}
		return fakeprovider.Answer{Text: "done"}
	}})
	t.Cleanup(s.srv.Close)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(root, "home")
	s.project, s.sock = filepath.Join(root, "project"), filepath.Join(root, "app.sock")
	os.MkdirAll(home, 0o700)
	os.MkdirAll(s.project, 0o700)
	extra, err := realcli.Seed("codex", home, s.project, s.srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	env := append([]string{"PATH=" + filepath.Dir(bin) + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "LANG=C.UTF-8", "TZ=UTC",
		"TERM=xterm-256color", "COLORTERM=truecolor", fakeagent.EnvOwner + "=" + strconv.Itoa(os.Getpid())}, extra...)
	s.server = exec.Command(bin, "app-server", "--listen", "unix://"+s.sock)
	s.server.Env, s.server.Dir = env, s.project
	s.server.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-s.server.Process.Pid, syscall.SIGKILL); s.server.Wait() })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(s.sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the app-server never made its socket")
		}
	}
	return s
}

// attach starts the TUI on the app-server, in a pty read by an emulator
// that answers its queries.
func (s *shared) attach(t testing.TB) {
	bin, _ := realcli.Bin("codex")
	s.tui = exec.Command(bin, "--remote", "unix://"+s.sock, "--no-alt-screen")
	s.tui.Env, s.tui.Dir = s.server.Env, s.project
	f, err := pty.StartWithSize(s.tui, &pty.Winsize{Cols: 200, Rows: 50})
	if err != nil {
		t.Fatal(err)
	}
	s.pty = f
	s.scr = protocol.NewScreen(hclog.NewNullLogger(), 200, 50, func(b []byte) { f.Write(b) })
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			s.mu.Lock()
			s.scr.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		syscall.Kill(-s.tui.Process.Pid, syscall.SIGKILL)
		s.tui.Wait()
		f.Close()
	})
}

func (s *shared) Rows() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.scr.Rows() {
		out = append(out, r.Text)
	}
	return out
}

func (s *shared) Bracketed() bool { return true }

func (s *shared) waitScreen(t testing.TB, what string, cond func(profile.Screen) bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(s); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s never came; the TUI shows:\n%s", what, strings.Join(s.Rows(), "\n"))
		}
	}
}

// prompt types the first prompt into the TUI and returns when Enter went.
func (s *shared) prompt(t testing.TB) time.Time {
	p, _ := profile.For("codex")
	s.waitScreen(t, "the TUI's input prompt", p.Ready)
	s.pty.Write([]byte("\x1b[200~Create the probe file now.\x1b[201~"))
	time.Sleep(300 * time.Millisecond)
	s.pty.Write([]byte("\r"))
	return time.Now()
}

// waitFor returns the first event of kind, or fails after d.
func waitFor(t testing.TB, c *Client, kind Kind, d time.Duration, match func(Event) bool) Event {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case e, ok := <-c.Events():
			if !ok {
				t.Fatalf("the channel closed before a %s event: %v", kind, c.Err())
			}
			if e.Kind == kind && (match == nil || match(e)) {
				return e
			}
		case <-timeout:
			t.Fatalf("no %s event within %s", kind, d)
		}
	}
}

// The real Codex 0.169.0: warden's client joins the TUI's thread on its
// app-server and says the agent waits, with the request's own reason and
// command, when the TUI draws its approval dialog; it answers nothing —
// the dialog stays, the command never runs — and nothing of Codex is left
// once both are killed.
func TestRealCodexApprovalThroughTheAppServer(t *testing.T) {
	t.Cleanup(func() { proctest.AssertNone(t) }) // last: after the CLIs are killed
	s := startShared(t)
	c, err := Dial(s.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s.attach(t)
	s.prompt(t)
	e := waitFor(t, c, Waiting, 60*time.Second, func(e Event) bool { return e.Request != "" })
	if !strings.Contains(e.Text, "Fetch the probe page into fetched.txt") || !strings.Contains(e.Text, probe) {
		t.Errorf("the waiting request says %q, want its reason and command", e.Text)
	}
	p, _ := profile.For("codex")
	s.waitScreen(t, "the TUI's approval dialog", func(sc profile.Screen) bool { _, ok := p.Dialog(sc); return ok })
	time.Sleep(2 * time.Second)
	if _, err := os.Stat(filepath.Join(s.project, "fetched.txt")); err == nil {
		t.Error("the command ran: the request was approved")
	}
	if _, ok := p.Dialog(s); !ok {
		t.Errorf("the dialog is gone without a person; the TUI shows:\n%s", strings.Join(s.Rows(), "\n"))
	}
}

// BenchmarkApprovalLatency: from Enter typed into the TUI (whose turn
// raises the approval at once: the fake provider answers in a moment) to
// the channel's Waiting event with the request's text, and to the TUI's
// dialog read off its screen by the codex profile — both polled at most
// every 5 ms.
func BenchmarkApprovalLatency(b *testing.B) {
	var channel, screen []time.Duration
	for range b.N {
		func() {
			s := startShared(b)
			c, err := Dial(s.sock)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			s.attach(b)
			enter := s.prompt(b)
			waitFor(b, c, Waiting, 60*time.Second, func(e Event) bool { return e.Request != "" })
			channel = append(channel, time.Since(enter))
			p, _ := profile.For("codex")
			for {
				if _, ok := p.Dialog(s); ok {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			screen = append(screen, time.Since(enter))
		}()
	}
	b.ReportMetric(float64(median(channel).Milliseconds()), "channel-ms")
	b.ReportMetric(float64(median(screen).Milliseconds()), "screen-drawn-ms")
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}
