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

// `warden wrap` around the real Claude Code, Codex and Gemini CLI, offline
// against the fake provider, with --checkpoint-interval 2s: warden's
// protocol is in the CLI's own instructions, so nothing reaches the model
// until the person types; after the person's first line and its turn,
// warden types one checkpoint request by itself, which the CLI answers and
// warden records; with the person away, no request follows.
func TestRealWrapAsksOnlyAfterTheUsersWork(t *testing.T) {
	for _, cli := range []string{"claude", "codex", "gemini"} {
		t.Run(cli, func(t *testing.T) {
			bin, err := realcli.Bin(cli)
			if err != nil {
				t.Skip(err)
			}
			realcli.Hold(t)
			defer proctest.AssertNone(t)
			var mu sync.Mutex
			var prompts []string // the main requests' prompts, in order
			srv := fakeprovider.New(hclog.NewNullLogger(), fakeprovider.Script{Decide: func(r fakeprovider.Request) fakeprovider.Answer {
				mu.Lock()
				prompts = append(prompts, r.Prompt)
				mu.Unlock()
				if strings.Contains(r.Prompt, "CHECKPOINT REQUEST: T7") {
					return fakeprovider.Answer{Text: "CHECKPOINT: T7\nStatus: implementing\nCompleted:\n- said ready\nRemaining:\n- what the user asks\n" +
						"Files Modified: none\nEstimated Progress: 20%\n"}
				}
				return fakeprovider.Answer{Text: "ready"}
			}})
			defer srv.Close()
			asked := func(sub string) (n int) {
				mu.Lock()
				defer mu.Unlock()
				for _, p := range prompts {
					if strings.Contains(p, sub) {
						n++
					}
				}
				return n
			}
			got := func() string {
				mu.Lock()
				defer mu.Unlock()
				return strings.Join(prompts, " | ")
			}
			root, _ := filepath.EvalSymlinks(t.TempDir())
			home, project, state := filepath.Join(root, "home"), filepath.Join(root, "project"), filepath.Join(root, "state")
			os.MkdirAll(home, 0o700)
			os.MkdirAll(project, 0o700)
			env, err := realcli.Seed(cli, home, project, srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			cmd := warden("wrap", "--name", "me", "--task", "T7", "--state-dir", state, "--checkpoint-interval", "2s", "--log-level", "debug", "--", bin)
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
				case <-exited:
				case <-time.After(30 * time.Second):
					t.Errorf("warden wrap did not end when the CLI quit; the screen:\n%s", strings.Join(u.Rows(), "\n"))
					cmd.Process.Signal(syscall.SIGTERM)
					<-exited
				}
			}()

			waitScreen(t, u, "the CLI ready", 90*time.Second, func(s profile.Screen) bool { return p.Ready(s) })
			time.Sleep(4 * time.Second) // two intervals
			if asked("") != 0 {
				t.Fatalf("requests reached the model before the person typed: %q", got())
			}
			f.Write([]byte("\x1b[200~Say ready.\x1b[201~"))
			time.Sleep(700 * time.Millisecond) // Enter as a write of its own, as a person types it
			f.Write([]byte("\r"))
			// A loaded machine: the CLI may take the Enter before the paste,
			// leaving the line in its box; the person presses Enter again.
			for i := 0; asked("Say ready.") == 0 && i < 300; i++ {
				if i == 100 || i == 200 {
					f.Write([]byte("\r"))
				}
				time.Sleep(50 * time.Millisecond)
			}
			cp := filepath.Join(state, "checkpoints", "me-T7.json")
			for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				if b, _ := os.ReadFile(cp); strings.Contains(string(b), `"progress_percent": 20`) {
					break
				}
				if time.Now().After(deadline) {
					log, _ := os.ReadFile(filepath.Join(state, "logs", "warden.log"))
					t.Fatalf("warden's request never answered and recorded; the model got %q; the screen:\n%s\nwarden's log:\n%s", got(), strings.Join(u.Rows(), "\n"), log)
				}
			}
			if asked("Say ready.") != 1 || asked("CHECKPOINT REQUEST: T7") != 1 {
				t.Fatalf("the model got %q, want the person's line, then one checkpoint request", got())
			}
			time.Sleep(5 * time.Second) // the person is away
			if n := asked("CHECKPOINT REQUEST: T7"); n != 1 {
				t.Errorf("%d checkpoint requests with the person away, want the one after their work", n)
			}
		})
	}
}
