//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/internal/realcli"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
)

// userScreen is the user's terminal as a person sees it: warden wrap's
// output through a VT emulator, which answers the CLI's queries as a
// terminal does.
type userScreen struct {
	mu  sync.Mutex
	scr protocol.Screen
}

func (u *userScreen) Rows() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for _, r := range u.scr.Rows() {
		out = append(out, r.Text)
	}
	return out
}

func (u *userScreen) Bracketed() bool { return true }

// `warden wrap -- opencode`, `-- qwen` and `-- copilot` in a person's
// terminal, offline against the fake provider: warden takes the profile
// from the program's name (warden ps says so), the person types a
// checkpoint request into the real CLI, and warden records the block the
// CLI draws — read off the CLI's own screen.
func TestWrapGuessesTheNewCLIsProfiles(t *testing.T) {
	for _, cli := range []string{"opencode", "qwen", "copilot"} {
		t.Run(cli, func(t *testing.T) {
			bin, err := realcli.Bin(cli)
			if err != nil {
				t.Skip(err)
			}
			realcli.Hold(t)
			defer proctest.AssertNone(t)
			srv := fakeprovider.New(hclog.NewNullLogger(), fakeprovider.Script{Decide: func(r fakeprovider.Request) fakeprovider.Answer {
				if strings.Contains(r.Prompt, "CHECKPOINT REQUEST: T7") {
					return fakeprovider.Answer{Text: "CHECKPOINT: T7\nStatus: testing\nCompleted:\n- wrapped\nRemaining:\n- nothing\n" +
						"Files Modified: w.go\nEstimated Progress: 70%\n"}
				}
				return fakeprovider.Answer{Text: "ready"}
			}})
			defer srv.Close()
			root, _ := filepath.EvalSymlinks(t.TempDir())
			home, project, state := filepath.Join(root, "home"), filepath.Join(root, "project"), filepath.Join(root, "state")
			os.MkdirAll(home, 0o700)
			os.MkdirAll(project, 0o700)
			env, err := realcli.Seed(cli, home, project, srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			cmd := warden("wrap", "--name", "me", "--task", "T7", "--state-dir", state, "--", bin)
			cmd.Dir = project
			cmd.Env = append(append(cmd.Env, "HOME="+home, "LANG=C.UTF-8", "TZ=UTC", "CI=false", "TERM=xterm-256color"), env...)
			f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			u := &userScreen{}
			u.scr = protocol.NewScreen(hclog.NewNullLogger(), 200, 50, func(b []byte) { f.Write(b) })
			defer u.scr.Close()
			go func() {
				buf := make([]byte, 32*1024)
				for {
					n, err := f.Read(buf)
					u.mu.Lock()
					u.scr.Write(buf[:n])
					u.mu.Unlock()
					if err != nil {
						return
					}
				}
			}()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			p, _ := profile.For(cli)
			defer func() { // the person quits the CLI, and warden wrap ends with it
				for _, k := range p.Quit() {
					time.Sleep(k.Pause)
					f.Write(k.Bytes)
				}
				select {
				case err := <-exited:
					if code := exitCode(err); code != 0 {
						t.Errorf("warden wrap exited %d after the CLI quit, want 0", code)
					}
				case <-time.After(30 * time.Second):
					t.Errorf("warden wrap did not end when the CLI quit; the screen:\n%s", strings.Join(u.Rows(), "\n"))
					cmd.Process.Signal(syscall.SIGTERM)
					<-exited
				}
			}()

			// Nothing is typed into the session (the CLI has warden's
			// protocol in its instructions): the person's own first line
			// is the first the model gets; then the turn boundary.
			waitScreen(t, u, "the CLI ready", 90*time.Second, func(s profile.Screen) bool { return p.Ready(s) })
			time.Sleep(2 * time.Second)
			if n := len(srv.Requests()); n != 0 {
				t.Fatalf("%d requests reached the model before the person typed: warden typed into the session", n)
			}
			f.Write([]byte("\x1b[200~Say ready.\x1b[201~"))
			time.Sleep(700 * time.Millisecond)
			f.Write([]byte("\r"))
			waitScreen(t, u, "the first turn over", 90*time.Second, func(s profile.Screen) bool {
				return len(srv.Requests()) > 0 && p.TurnEnded(s)
			})
			f.Write([]byte("\x1b[200~CHECKPOINT REQUEST: T7\x1b[201~"))
			time.Sleep(700 * time.Millisecond) // Enter as a write of its own, as a person types it
			f.Write([]byte("\r"))
			cp := filepath.Join(state, "checkpoints", "me-T7.json")
			waitScreen(t, u, "the checkpoint recorded", 60*time.Second, func(profile.Screen) bool {
				b, _ := os.ReadFile(cp)
				return strings.Contains(string(b), `"progress_percent": 70`)
			})
			ps, errOut, code := wardenCmd("ps", "--json", "--state-dir", state)
			if code != 0 || !strings.Contains(ps, `"profile": "`+cli+`"`) && !strings.Contains(ps, `"profile":"`+cli+`"`) {
				t.Errorf("warden ps: exit %d, want the agent's profile %s:\n%s%s", code, cli, ps, errOut)
			}
		})
	}
}

// waitScreen polls the user's screen until cond holds.
func waitScreen(t *testing.T, u *userScreen, what string, d time.Duration, cond func(profile.Screen) bool) {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond(u) {
			return
		}
	}
	t.Fatalf("%s never came; the screen:\n%s", what, strings.Join(u.Rows(), "\n"))
}

// With OpenCode, Qwen Code and Copilot CLI on PATH (the installed real
// ones), warden init writes an agent for each that works unattended by its
// own rule: Qwen with --approval-mode auto-edit, Copilot with --allow-tool
// write, OpenCode with its preset's permission config (env
// OPENCODE_PERMISSION, docs/agent-clis.md) — and the team validates
// without a warning.
func TestInitOffersTheNewCLIs(t *testing.T) {
	dir, bin := t.TempDir(), t.TempDir()
	for _, cli := range []string{"opencode", "qwen", "copilot"} {
		real, err := realcli.Bin(cli)
		if err != nil {
			t.Skip(err)
		}
		if err := os.Symlink(real, filepath.Join(bin, cli)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := inDir(dir, "init")
	cmd.Env = append(withoutEnv(cmd.Env, "PATH"), "PATH="+bin)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "wrote team.toml: agents copilot, opencode, qwen\n") {
		t.Fatalf("init: %v\n%s", err, out)
	}
	text, _ := os.ReadFile(filepath.Join(dir, "team.toml"))
	for _, want := range []string{
		"profile = \"opencode\"", "command = [\"opencode\"]", "env = { OPENCODE_PERMISSION = '''",
		"profile = \"qwen\"", `command = ["qwen", "--approval-mode", "auto-edit"]`,
		"profile = \"copilot\"", `command = ["copilot", "--allow-tool", "write"]`,
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("team.toml lacks %s:\n%s", want, text)
		}
	}
	cmd = inDir(dir, "validate", "team.toml")
	cmd.Env = append(withoutEnv(cmd.Env, "PATH"), "PATH="+bin)
	if out, err := cmd.CombinedOutput(); err != nil || strings.Contains(string(out), "warning") {
		t.Errorf("validate: %v\n%s", err, out)
	}
}
