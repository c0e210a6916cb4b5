//go:build e2e

package profile

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	"github.com/wardenhq/warden/internal/realcli"
	"github.com/wardenhq/warden/protocol"
)

// cliBin returns the installed real CLI, or skips: only when it is not
// installed (CI installs them, so the skip never hides there).
func cliBin(t testing.TB, cli string) string {
	t.Helper()
	bin, err := realcli.Bin(cli)
	if err != nil {
		t.Skip(err)
	}
	realcli.Hold(t)
	return bin
}

// cliStartWait bounds a real CLI's start, to its ready prompt, in a test
// that holds a real-CLI slot: seconds alone, but 40 s were once not enough
// for OpenCode's first screen beside a whole run (a blank screen), and the
// test's own time starts once it is ready.
const cliStartWait = 90 * time.Second

// mainUA is the User-Agent prefix of a CLI's own turns (not side calls).
var mainUA = map[string]string{"claude": "claude-cli/", "codex": "codex-tui/", "gemini": "GeminiCLI-tui/",
	"opencode": "opencode/", "qwen": "QwenCode/", "copilot": "OpenAI/JS "}

// cliSession is one real CLI under a real pty (200x50), offline against
// the fake provider, with its screen emulated.
type cliSession struct {
	t      testing.TB
	cli    string
	name   string // cli, or how it runs ("codex+app-server")
	marker string
	p      *Profile
	srv    *fakeprovider.Server
	cmd    *exec.Cmd
	ptmx   *os.File

	mu      sync.Mutex
	scr     protocol.Screen
	modes   ModeTracker
	lastOut time.Time // when the CLI last wrote

	readDone chan struct{}
	waitDone chan struct{}
}

// startCLI starts cli with a fresh HOME holding the pre-seeded config of
// research/real-clis.md, answering with decide; edit, when given, changes
// the CLI's own environment. "codex+app-server" is Codex's TUI attached to
// its app-server (started first, in the TUI's process group's stead: its
// own group, killed with the session), as warden runs it.
func startCLI(t testing.TB, cli string, decide func(fakeprovider.Request) fakeprovider.Answer, edit ...func([]string) []string) *cliSession {
	t.Helper()
	name := cli
	cli, remote := strings.CutSuffix(cli, "+app-server")
	bin := cliBin(t, cli)
	marker := fmt.Sprintf("%s=%s-%d", envSession, cli, time.Now().UnixNano())
	t.Cleanup(func() { assertNoneLeft(t, marker) })
	srv := fakeprovider.New(testLogger(t), fakeprovider.Script{Decide: decide})
	t.Cleanup(srv.Close)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	extra := seedConfig(t, cli, home, project, srv.URL())
	for _, e := range edit {
		extra = e(extra)
	}
	p := mustProfile(t, cli).WithLogger(hclog.New(&hclog.LoggerOptions{Name: t.Name(), Level: hclog.Info, Output: os.Stderr}))
	env := append([]string{"PATH=" + filepath.Dir(bin) + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + home,
		"LANG=C.UTF-8", "TZ=UTC", fakeagent.EnvOwner + "=" + strconv.Itoa(os.Getpid()), marker}, extra...)
	argv := p.Command([]string{bin})
	if remote {
		argv = []string{bin, "--remote", "unix://" + startAppServer(t, bin, root, project, p.Env(env)), "--no-alt-screen"}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = p.Env(env), project
	s := &cliSession{t: t, cli: cli, name: name, marker: marker, p: p, srv: srv, cmd: cmd, readDone: make(chan struct{}), waitDone: make(chan struct{})}
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 200, Rows: 50})
	if err != nil {
		t.Fatalf("start %s: %v", cli, err)
	}
	s.ptmx = ptmx
	s.scr = protocol.NewScreen(testLogger(t), 200, 50, func(b []byte) { _, _ = ptmx.Write(b) })
	go s.read()
	go func() { _ = cmd.Wait(); close(s.waitDone) }()
	t.Cleanup(s.kill)
	return s
}

func (s *cliSession) read() {
	defer close(s.readDone)
	buf := make([]byte, 64<<10)
	for {
		n, err := s.ptmx.Read(buf)
		if n > 0 {
			s.mu.Lock()
			_, _ = s.scr.Write(buf[:n])
			_, _ = s.modes.Write(buf[:n])
			s.lastOut = time.Now()
			s.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// settledScreen is the current screen when the CLI has written nothing for
// 100 ms (or the profile's Settle, if shorter) — whole frames, never one
// torn half drawn, which warden never parses (it waits for Settle) — else
// false.
func (s *cliSession) settledScreen() (Screen, bool) {
	s.mu.Lock()
	quiet := time.Since(s.lastOut) >= min(s.p.Settle, 100*time.Millisecond)
	s.mu.Unlock()
	if !quiet {
		return nil, false
	}
	return s.screen(), true
}

// screen is the current screen.
func (s *cliSession) screen() Screen {
	s.mu.Lock()
	defer s.mu.Unlock()
	rows := s.scr.Rows()
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Text
	}
	return staticScreen{rows: out, bracketed: s.modes.Bracketed()}
}

// waitScreen polls the screen until cond holds or fails after d.
func (s *cliSession) waitScreen(what string, d time.Duration, cond func(Screen) bool) {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		sc := s.screen()
		if cond(sc) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: %s not seen within %v; screen:\n%s", s.cli, what, d, sc)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// turns counts the CLI's own turns (path and User-Agent, not side calls)
// whose prompt contains marker.
func (s *cliSession) turns(marker string) int {
	n := 0
	for _, r := range s.srv.Requests() {
		if !r.Side && strings.HasPrefix(r.UserAgent, mainUA[s.cli]) && strings.Contains(r.Prompt, marker) {
			n++
		}
	}
	return n
}

// quit types the profile's quit keys and waits for the CLI to exit.
func (s *cliSession) quit() error {
	for _, k := range s.p.Quit() {
		select { // as warden's stop: no key once the CLI has exited
		case <-s.waitDone:
			return s.exitErr()
		case <-time.After(k.Pause):
		}
		if _, err := s.ptmx.Write(k.Bytes); err != nil {
			return fmt.Errorf("write quit keys: %w", err)
		}
	}
	select {
	case <-s.waitDone:
	case <-time.After(40 * time.Second): // Gemini took over 20 s on a loaded machine
		return errors.New("still running 40 s after the quit keys")
	}
	return s.exitErr()
}

// exitErr says how the CLI exited, if not with success.
func (s *cliSession) exitErr() error {
	if !s.cmd.ProcessState.Success() {
		return fmt.Errorf("exit status %v", s.cmd.ProcessState)
	}
	return nil
}

// kill ends whatever is left of the session's process group and closes
// the pty; the proctest check then finds any escaped descendant.
func (s *cliSession) kill() {
	select {
	case <-s.waitDone:
	default:
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.waitDone
	}
	_ = s.ptmx.Close()
	<-s.readDone
	_ = s.scr.Close()
}

// startAppServer starts `codex app-server` on a socket in dir, in its own
// process group (killed at the test's end), and returns the socket once
// it is there.
func startAppServer(t testing.TB, bin, dir, project string, env []string) string {
	t.Helper()
	sock := filepath.Join(dir, "app.sock")
	srv := exec.Command(bin, "app-server", "--listen", "unix://"+sock)
	srv.Env, srv.Dir = env, project
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-srv.Process.Pid, syscall.SIGKILL); _ = srv.Wait() })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if fi, err := os.Stat(sock); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return sock
		}
		if time.Now().After(deadline) {
			t.Fatal("the app-server made no socket within 30 s")
		}
	}
}

// seedConfig writes what each CLI needs to start offline without dialogs
// and returns its environment (the keys are fake).
func seedConfig(t testing.TB, cli, home, project, url string) []string {
	t.Helper()
	env, err := realcli.Seed(cli, home, project, url)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// envSession marks every process of one session (descendants inherit it,
// even those that leave the process group), so that tests running in
// parallel each check only their own.
const envSession = "WARDEN_PROFILE_SESSION"

// leftovers lists the live processes carrying marker in their environment.
func leftovers(marker string) []string {
	var out []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + d.Name() + "/environ")
		if err != nil || !slices.Contains(strings.Split(string(env), "\x00"), marker) {
			continue
		}
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		out = append(out, fmt.Sprintf("pid=%d %s", pid, strings.ReplaceAll(string(cmd), "\x00", " ")))
	}
	return out
}

// assertNoneLeft waits up to 3 s for the session's processes to vanish,
// then fails listing them and kills them.
func assertNoneLeft(t testing.TB, marker string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		left := leftovers(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, l := range left {
				var pid int
				_, _ = fmt.Sscanf(l, "pid=%d", &pid)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("%d leftover process(es):\n%s", len(left), strings.Join(left, "\n"))
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
