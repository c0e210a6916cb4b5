//go:build e2e

package hookbus

import (
	"encoding/json"
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
	"github.com/wardenhq/warden/internal/realcli"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/runner"
)

// cliBinDir holds the real CLIs (scripts/install-clis.sh into
// WARDEN_CLIS_DIR, default ~/.cache/warden-clis); WARDEN_CLI_BIN overrides it.
func cliBinDir() string {
	if d := os.Getenv("WARDEN_CLI_BIN"); d != "" {
		return d
	}
	return filepath.Join(realcli.Dir(), "node_modules", ".bin")
}

// cliSetup is how one CLI runs offline against the fake provider in a
// fresh HOME (the recipe of internal/tools/record).
type cliSetup struct {
	args  []string // after the program name, before warden's
	ready string   // on screen when the prompt takes input
	quit  []string // typed 700 ms apart to leave
	setup func(t *testing.T, home, project, baseURL string) []string
}

var cliSetups = map[string]cliSetup{
	"claude": {ready: "/effort", quit: []string{"/exit", "\r"},
		setup: func(t *testing.T, home, project, baseURL string) []string {
			// The user's own settings: a Stop hook and a status line, both
			// of which must keep working beside warden's.
			writeTestFile(t, filepath.Join(home, ".claude", "settings.json"),
				`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "touch \"$HOME/user-stop-ran\""}]}]},
 "statusLine": {"type": "command", "command": "echo user-line"}}`)
			return seed(t, "claude", home, project, baseURL)
		}},
	"codex": {args: []string{"--no-daemon", "--no-alt-screen"}, ready: "Ask Codex", quit: []string{"\x03", "\x03"},
		setup: func(t *testing.T, home, project, baseURL string) []string {
			return seed(t, "codex", home, project, baseURL)
		}},
	"gemini": {ready: "Type your message", quit: []string{"/quit", "\r"},
		setup: func(t *testing.T, home, project, baseURL string) []string {
			return seed(t, "gemini", home, project, baseURL)
		}},
}

// seed is internal/realcli's offline set-up of one CLI.
func seed(t *testing.T, cli, home, project, baseURL string) []string {
	t.Helper()
	realcli.Hold(t)
	env, err := realcli.Seed(cli, home, project, baseURL)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// cliRun is one real CLI under a pty with warden's generated hook settings,
// its hook bus and its fake provider.
type cliRun struct {
	t        *testing.T
	name     string
	setup    cliSetup
	home     string
	state    string
	server   *Server
	provider *fakeprovider.Server
	cmd      *exec.Cmd
	ptmx     *os.File

	mu       sync.Mutex
	scr      protocol.Screen // answers the CLI's terminal queries, as a terminal would
	readDone chan struct{}
	waitDone chan struct{}
}

// startCLI starts the named CLI the way warden would: profile.Settings
// arguments, environment and files, the hook bus listening at SocketPath.
func startCLI(t *testing.T, name string, answer fakeprovider.Answer) *cliRun {
	t.Helper()
	bin := filepath.Join(cliBinDir(), name)
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s is not installed at %s (scripts/install-clis.sh installs it; WARDEN_CLI_BIN overrides the dir)", name, bin)
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "test", Level: hclog.Warn, Output: os.Stderr})
	r := &cliRun{t: t, name: name, setup: cliSetups[name], home: t.TempDir(), state: t.TempDir(),
		readDone: make(chan struct{}), waitDone: make(chan struct{})}
	project, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r.provider = fakeprovider.New(logger, fakeprovider.Script{Answers: []fakeprovider.Answer{answer}})
	t.Cleanup(r.provider.Close)
	r.server, err = Listen(logger, socketOf(r.state))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.server.Close)

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + cliBinDir() + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + r.home, "LANG=C.UTF-8",
		"TZ=UTC", "TERM=xterm-256color", "COLORTERM=truecolor",
		fakeagent.EnvOwner + "=" + strconv.Itoa(os.Getpid()), envTestHook + "=1", "GORACE=atexit_sleep_ms=0"}
	env = append(env, r.setup.setup(t, r.home, project, r.provider.URL())...)
	agentDir := filepath.Join(r.state, "agents", "a1")
	args, extraEnv, files, err := profile.Settings(name, profile.Options{WardenBin: self, StateDir: r.state,
		Agent: "a1", Dir: agentDir, Socket: r.server.Path(), Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(agentDir, 0o700); err != nil {
		t.Fatal(err)
	}
	for p, b := range files {
		writeTestFile(t, p, string(b))
	}
	env = append(env, extraEnv...)
	argv := append(append([]string{bin}, r.setup.args...), args...)
	r.cmd = exec.Command(argv[0], argv[1:]...)
	r.cmd.Env, r.cmd.Dir = env, project
	r.ptmx, err = pty.StartWithSize(r.cmd, &pty.Winsize{Cols: 160, Rows: 50})
	if err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	r.scr = protocol.NewScreen(hclog.NewNullLogger(), 160, 50, func(b []byte) { _, _ = r.ptmx.Write(b) })
	// As the team does: a message is believed only from the CLI's own
	// process tree (its session, pty.Start made it lead one, or below it).
	leader, _ := runner.Stat(r.cmd.Process.Pid)
	r.server.CheckSenders(func(agent string, pid int) bool {
		st, ok := runner.Stat(pid)
		return agent == "a1" && ok && (st.Sid == leader.Pid || runner.DescendsFrom(pid, leader))
	})
	go r.read()
	go func() { _ = r.cmd.Wait(); close(r.waitDone) }()
	t.Cleanup(r.stop)
	return r
}

func (r *cliRun) read() {
	defer close(r.readDone)
	buf := make([]byte, 64<<10)
	for {
		n, err := r.ptmx.Read(buf)
		if n > 0 {
			r.mu.Lock()
			_, _ = r.scr.Write(buf[:n])
			r.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

func (r *cliRun) screen() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, row := range r.scr.Rows() {
		b.WriteString(row.Text + "\n")
	}
	return b.String()
}

// waitReady polls the screen until the CLI's prompt shows.
func (r *cliRun) waitReady(timeout time.Duration) {
	r.t.Helper()
	deadline := time.Now().Add(timeout)
	for !strings.Contains(r.screen(), r.setup.ready) {
		if time.Now().After(deadline) {
			r.t.Fatalf("%s: prompt not ready after %v; screen:\n%s", r.name, timeout, r.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitScreen polls the screen for want; false after timeout.
func (r *cliRun) waitScreen(want string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for !strings.Contains(r.screen(), want) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
	return true
}

// submit types text, then after 700 ms "\r" as its own write.
func (r *cliRun) submit(text string) {
	r.t.Helper()
	// Typed again if it never shows (Gemini CLI still initializing on a
	// loaded machine drops what is typed, as warden's Submit knows).
	for try := 0; try < 2; try++ {
		if _, err := r.ptmx.Write([]byte(text)); err != nil {
			r.t.Fatal(err)
		}
		if r.waitScreen(text, 5*time.Second) {
			break
		}
	}
	time.Sleep(700 * time.Millisecond)
	if _, err := r.ptmx.Write([]byte("\r")); err != nil {
		r.t.Fatal(err)
	}
}

// stop quits the CLI politely, then kills its process group.
func (r *cliRun) stop() {
	for _, q := range r.setup.quit {
		_, _ = r.ptmx.Write([]byte(q))
		select {
		case <-r.waitDone:
		case <-time.After(700 * time.Millisecond):
		}
	}
	select {
	case <-r.waitDone:
	case <-time.After(3 * time.Second):
		_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-r.waitDone:
		case <-time.After(2 * time.Second):
			_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
			<-r.waitDone
		}
	}
	_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
	_ = r.ptmx.Close()
	<-r.readDone
	_ = r.scr.Close()
}

// collect reads hook messages until done says it has what it needs.
func (r *cliRun) collect(timeout time.Duration, done func([]Message) bool) []Message {
	r.t.Helper()
	var got []Message
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case m := <-r.server.Messages():
			if m.Checked && !m.Owned {
				r.t.Errorf("%s: a %s message from pid %d, a process of the CLI's, was refused", r.name, m.Kind, m.Pid)
				continue
			}
			got = append(got, m)
			if done(got) {
				return got
			}
		case <-t.C:
			kinds := make([]string, len(got))
			for i, m := range got {
				kinds[i] = m.Kind
			}
			r.t.Fatalf("%s: hook messages after %v: %v; screen:\n%s", r.name, timeout, kinds, r.screen())
			return nil
		}
	}
}

func contextWindowSize(t *testing.T, status []byte) int {
	t.Helper()
	var p struct {
		ContextWindow struct {
			Size int `json:"context_window_size"`
		} `json:"context_window"`
	}
	if err := json.Unmarshal(status, &p); err != nil || p.ContextWindow.Size <= 0 {
		t.Fatalf("status line payload without context_window_size: %v\n%s", err, status)
	}
	return p.ContextWindow.Size
}

func codexWindow(t *testing.T, line []byte) int {
	t.Helper()
	var p struct {
		Payload struct {
			Info struct {
				Window int `json:"model_context_window"`
			} `json:"info"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(line, &p); err != nil || p.Payload.Info.Window <= 0 {
		t.Fatalf("token_count without model_context_window: %v\n%s", err, line)
	}
	return p.Payload.Info.Window
}
