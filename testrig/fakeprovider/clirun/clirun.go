// Package clirun runs one real agent CLI (Claude Code, Codex CLI, Gemini
// CLI) under a pseudo-terminal, offline against a fakeprovider.Server, with
// a fresh home and project directory and its screen emulated, for the tests
// of testrig/fakeprovider and supervisor/usage. The set-up is
// research/real-clis.md's (testrig/realcli.Seed), plus the account header
// the server tells agents apart by, and for Claude Code optionally the
// claude.ai sign-in under which it reads the subscription rate-limit
// headers.
package clirun

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/fakeprovider"
	"github.com/wardenhq/warden/testrig/realcli"
)

// Options say which CLI to start and how.
type Options struct {
	// CLI is "claude", "codex" or "gemini".
	CLI string
	// URL is the fake provider's base URL.
	URL string
	// Root is an empty directory for the CLI's home and project.
	Root string
	// Account, when set, is sent as fakeprovider.AccountHeader.
	Account string
	// Subscriber signs Claude Code in as a claude.ai subscriber
	// (CLAUDE_CODE_OAUTH_TOKEN, a fake token) instead of an API token:
	// only then does it read the anthropic-ratelimit-unified-* headers,
	// show the subscription limit banner and continue by itself at the
	// reset.
	Subscriber bool
	// Args follow the binary (Codex always gets --no-daemon
	// --no-alt-screen, as warden runs it).
	Args []string
	// Env is added to the CLI's environment.
	Env []string
	// Setup, when set, runs after the config is seeded and before the
	// start: for settings of a test's own (hooks, status line).
	Setup func(home, project string) error
	// Cols and Rows default to 200x50.
	Cols, Rows int
	Logger     hclog.Logger
}

// CLI is one running CLI.
type CLI struct {
	Name          string
	Home, Project string
	Started       time.Time

	logger hclog.Logger
	cmd    *exec.Cmd
	ptmx   *os.File

	mu      sync.Mutex
	scr     protocol.Screen
	history []string // rows scrolled off the top, oldest first

	readDone chan struct{}
	waitDone chan struct{}
	waitErr  error
}

// Start seeds a home under o.Root and starts the CLI in its project dir.
func Start(o Options) (*CLI, error) {
	bin, err := realcli.Bin(o.CLI)
	if err != nil {
		return nil, err
	}
	if o.Cols == 0 {
		o.Cols, o.Rows = 200, 50
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	root, err := filepath.EvalSymlinks(o.Root)
	if err != nil {
		return nil, fmt.Errorf("clirun: %w", err)
	}
	c := &CLI{Name: o.CLI, Home: filepath.Join(root, "home"), Project: filepath.Join(root, "project"),
		logger: o.Logger.Named("clirun." + o.CLI), readDone: make(chan struct{}), waitDone: make(chan struct{})}
	for _, d := range []string{c.Home, c.Project} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("clirun: %w", err)
		}
	}
	extra, err := seed(o, c.Home, c.Project)
	if err != nil {
		return nil, err
	}
	if o.Setup != nil {
		if err := o.Setup(c.Home, c.Project); err != nil {
			return nil, fmt.Errorf("clirun: set-up: %w", err)
		}
	}
	env := append([]string{"PATH=" + filepath.Dir(bin) + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + c.Home,
		"LANG=C.UTF-8", "TZ=UTC", "TERM=xterm-256color", "COLORTERM=truecolor",
		fakeagent.EnvOwner + "=" + fmt.Sprint(os.Getpid())}, extra...)
	env = append(env, o.Env...)
	args := o.Args
	if o.CLI == "codex" {
		args = append([]string{"--no-daemon", "--no-alt-screen"}, args...)
	}
	c.cmd = exec.Command(bin, args...)
	c.cmd.Env, c.cmd.Dir = env, c.Project
	c.ptmx, err = pty.StartWithSize(c.cmd, &pty.Winsize{Cols: uint16(o.Cols), Rows: uint16(o.Rows)})
	if err != nil {
		return nil, fmt.Errorf("clirun: start %s: %w", o.CLI, err)
	}
	c.Started = time.Now()
	c.scr = protocol.NewScreen(c.logger, o.Cols, o.Rows, func(b []byte) { _, _ = c.ptmx.Write(b) })
	go c.read()
	go func() { c.waitErr = c.cmd.Wait(); close(c.waitDone) }()
	return c, nil
}

// seed writes the offline config and returns the CLI's own environment.
func seed(o Options, home, project string) ([]string, error) {
	env, err := realcli.Seed(o.CLI, home, project, o.URL)
	if err != nil {
		return nil, err
	}
	if o.CLI == "claude" && o.Subscriber {
		env = replaceEnv(env, "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN=fake-oauth-token")
	}
	if o.Account == "" {
		return env, nil
	}
	switch o.CLI {
	case "claude":
		env = append(env, "ANTHROPIC_CUSTOM_HEADERS="+fakeprovider.AccountHeader+": "+o.Account)
	case "gemini":
		env = append(env, "GEMINI_CLI_CUSTOM_HEADERS="+fakeprovider.AccountHeader+":"+o.Account)
	case "codex":
		cfg := filepath.Join(home, ".codex", "config.toml")
		b, err := os.ReadFile(cfg)
		if err != nil {
			return nil, fmt.Errorf("clirun: %w", err)
		}
		line := `wire_api = "responses"`
		s := strings.Replace(string(b), line, line+"\n"+`env_http_headers = { "`+fakeprovider.AccountHeader+`" = "FAKE_ACCOUNT" }`, 1)
		if err := os.WriteFile(cfg, []byte(s), 0o600); err != nil {
			return nil, fmt.Errorf("clirun: %w", err)
		}
		env = append(env, "FAKE_ACCOUNT="+o.Account)
	}
	return env, nil
}

func replaceEnv(env []string, name, with string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, with)
}

func (c *CLI) read() {
	defer close(c.readDone)
	buf := make([]byte, 64<<10)
	for {
		n, err := c.ptmx.Read(buf)
		if n > 0 {
			c.mu.Lock()
			_, _ = c.scr.Write(buf[:n])
			off, cleared := c.scr.ScrolledOff()
			if cleared {
				c.history = nil
			}
			for _, r := range off {
				c.history = append(c.history, r.Text)
			}
			c.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// Screen is the visible screen, rows joined by newlines.
func (c *CLI) Screen() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var rows []string
	for _, r := range c.scr.Rows() {
		rows = append(rows, strings.TrimRight(r.Text, " "))
	}
	return strings.Join(rows, "\n")
}

// Transcript is the rows scrolled off and the visible screen.
func (c *CLI) Transcript() string {
	c.mu.Lock()
	hist := strings.Join(c.history, "\n")
	c.mu.Unlock()
	return hist + "\n" + c.Screen()
}

// WaitFor polls the visible screen until cond holds; the error holds the
// screen.
func (c *CLI) WaitFor(what string, d time.Duration, cond func(screen string) bool) error {
	deadline := time.Now().Add(d)
	for {
		sc := c.Screen()
		if cond(sc) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %s not seen within %v; screen:\n%s", c.Name, what, d, sc)
		}
		select {
		case <-c.waitDone:
			return fmt.Errorf("%s exited (%v) waiting for %s; screen:\n%s", c.Name, c.waitErr, what, c.Screen())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// WaitText waits until the visible screen contains text.
func (c *CLI) WaitText(text string, d time.Duration) error {
	return c.WaitFor(fmt.Sprintf("%q", text), d, func(s string) bool { return strings.Contains(s, text) })
}

// Write types b as one write.
func (c *CLI) Write(b string) error {
	if _, err := c.ptmx.Write([]byte(b)); err != nil {
		return fmt.Errorf("%s: write: %w", c.Name, err)
	}
	return nil
}

// Submit types text as a bracketed paste, then Enter 700 ms later as a
// write of its own (the one way all three CLIs take: research/real-clis.md).
func (c *CLI) Submit(text string) error {
	if err := c.Write("\x1b[200~" + text + "\x1b[201~"); err != nil {
		return err
	}
	time.Sleep(700 * time.Millisecond)
	return c.Write("\r")
}

// Quit types the CLI's quit keys and waits up to 20 s for it to exit.
func (c *CLI) Quit() error {
	keys := map[string][]string{"claude": {"/exit", "\r"}, "codex": {"\x03", "\x03"}, "gemini": {"/quit", "\r"}}[c.Name]
	for _, k := range keys {
		if err := c.Write(k); err != nil {
			return err
		}
		time.Sleep(700 * time.Millisecond)
	}
	select {
	case <-c.waitDone:
	case <-time.After(20 * time.Second):
		return errors.New(c.Name + ": still running 20 s after the quit keys")
	}
	return nil
}

// Kill ends whatever is left of the CLI's process group and closes the pty.
func (c *CLI) Kill() {
	select {
	case <-c.waitDone:
	default:
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		<-c.waitDone
	}
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	_ = c.ptmx.Close()
	<-c.readDone
	_ = c.scr.Close()
}
