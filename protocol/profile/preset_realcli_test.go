//go:build e2e

package profile

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/protocol"
)

// presetStep is one tool call of the model's and what the CLI must do
// with it: run it (inside the project), or refuse it at once with its own
// words (refusal) as the tool's result.
type presetStep struct {
	call    fakeprovider.ToolCall
	refusal string // "" for a call that must run
}

// presetRun answers the first prompt with its steps' tool calls, one per
// request, each after the previous one's result came back, then with text.
type presetRun struct {
	steps []presetStep

	mu      sync.Mutex
	next    int         // the step to send next; -1 before the prompt
	sent    []time.Time // when each call was sent
	results [][]fakeprovider.ToolResult
	came    []time.Time // when each call's result came back
}

const (
	presetPrompt = "Run the commands."
	presetDone   = "CARRIED ON AFTER THE REFUSAL"
)

func (r *presetRun) decide(req fakeprovider.Request) fakeprovider.Answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.next < 0 && strings.Contains(req.Prompt, presetPrompt):
		r.next = 0
	case r.next > len(r.results) && len(req.ToolResults) > 0:
		r.results, r.came = append(r.results, req.ToolResults), append(r.came, time.Now())
	default:
		return fakeprovider.Answer{Text: "READY."}
	}
	if r.next == len(r.steps) {
		r.next++
		return fakeprovider.Answer{Text: presetDone}
	}
	call := r.steps[r.next].call
	r.next++
	r.sent = append(r.sent, time.Now())
	return fakeprovider.Answer{Tool: &call}
}

// probeServer counts the requests that reach it: a command outside the
// project fetches from it.
func probeServer(t *testing.T) (url string, hits *atomic.Int32) {
	hits = &atomic.Int32{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "PROBE BODY")
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/probe", hits
}

// Each CLI (Claude Code, Codex, Gemini CLI, OpenCode) started with its preset (the command `warden init` writes)
// runs commands on the preset's list inside the project with no dialog
// (the files they write appear), and refuses one outside it (a fetch from a
// server on 127.0.0.1 into a file; for Codex, a call asking to run outside
// its sandbox) at once, with no dialog drawn: the CLI's refusal reaches the
// model as the tool's result within seconds, the server is never reached,
// and the agent carries on to its next answer. Claude Code also writes a
// file in the project and is refused one outside it, and a command on its
// list whose redirection writes outside. The profile's own
// dialog reader watches the screen throughout.
func TestRealPresetsNeverAsk(t *testing.T) {
	goBin := filepath.Join(runtime.GOROOT(), "bin")
	// The first and the last command of the preset's list.
	inside := presetStep{call: fakeprovider.ToolCall{Command: "go version > version.txt", Description: "Print the Go version", InSandbox: true}}
	here := presetStep{call: fakeprovider.ToolCall{Command: "pwd > here.txt", Description: "Print the directory", InSandbox: true}}
	fetch := func(url string) fakeprovider.ToolCall {
		return fakeprovider.ToolCall{Command: "curl -s " + url + " > fetched.txt", Description: "Fetch the probe page"}
	}
	write := func(path string) fakeprovider.ToolCall {
		return fakeprovider.ToolCall{Name: "Write", Input: map[string]any{"file_path": path, "content": "written\n"}}
	}
	const dontAsk = "denied because Claude Code is running in don't ask mode"
	for _, c := range []struct {
		cli   string
		steps func(url string) []presetStep
	}{
		{"claude", func(url string) []presetStep {
			return []presetStep{inside, here, {call: fetch(url), refusal: dontAsk},
				{call: write("written.txt")}, {call: write("../outside.txt"), refusal: dontAsk},
				// a command on the list whose redirection writes outside
				{call: fakeprovider.ToolCall{Command: "ls > ../listing.txt", Description: "List"}, refusal: dontAsk}}
		}},
		// exec_command with sandbox_permissions "require_escalated": the
		// one call that makes Codex ask.
		{"codex", func(url string) []presetStep {
			return []presetStep{inside, here, {call: fetch(url), refusal: "approval policy is Never; reject command"}}
		}},
		{"gemini", func(url string) []presetStep {
			return []presetStep{inside, here, {call: fetch(url), refusal: "Tool execution denied by policy"}}
		}},
		// OPENCODE_PERMISSION (the preset's Env) denies the fetch.
		{"opencode", func(url string) []presetStep {
			return []presetStep{inside, here, {call: fetch(url), refusal: "a rule which prevents you from using this specific tool call"}}
		}},
	} {
		t.Run(c.cli, func(t *testing.T) {
			t.Parallel()
			preset, ok := PresetOf(c.cli)
			if !ok {
				t.Fatalf("%s has no preset", c.cli)
			}
			url, hits := probeServer(t)
			r := &presetRun{steps: c.steps(url), next: -1}
			s, project := startPresetCLI(t, c.cli, preset, r.decide, goBin)
			s.waitScreen("ready prompt", cliStartWait, s.p.Ready)
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			s.waitScreen("turn boundary", 30*time.Second, s.p.TurnEnded)
			if err := s.p.Submit(ctx, s.ptmx, s.screen, presetPrompt); err != nil {
				t.Fatalf("submit: %v\nscreen:\n%s", err, s.screen())
			}
			var dialog string
			s.waitScreen("the answer after the refusal", 60*time.Second, func(sc Screen) bool {
				if d, ok := s.p.Dialog(sc); ok && dialog == "" {
					dialog = d.Text
				}
				return dialog != "" || (answered(s.p, sc, presetDone) && s.p.TurnEnded(sc))
			})
			if dialog != "" {
				t.Fatalf("a dialog was drawn: %q\nscreen:\n%s", dialog, s.screen())
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			if len(r.results) != len(r.steps) {
				t.Fatalf("%d tool results came back for %d calls", len(r.results), len(r.steps))
			}
			for i, st := range r.steps {
				text := ""
				for _, res := range r.results[i] {
					text += res.Text
				}
				t.Logf("%q → %.200q", st.call.Command+st.call.Name, text)
				// At once: no dialog held it (one would hold it for good);
				// 30 s for a CLI on a loaded machine (OpenCode took 14 s).
				if d := r.came[i].Sub(r.sent[i]); d > 30*time.Second {
					t.Errorf("%q: its result came back %s after the call, want at once", st.call.Command, d)
				}
				if st.refusal != "" && !strings.Contains(text, st.refusal) {
					t.Errorf("%q: result %q, want the CLI's refusal %q", st.call.Command+st.call.Name, text, st.refusal)
				}
			}
			v, err := os.ReadFile(filepath.Join(project, "version.txt"))
			if err != nil || !strings.Contains(string(v), "go version") {
				t.Errorf("the command on the list did not run: version.txt %q, %v", v, err)
			}
			if h, err := os.ReadFile(filepath.Join(project, "here.txt")); err != nil || strings.TrimSpace(string(h)) != project {
				t.Errorf("pwd did not run in the project: here.txt %q, %v", h, err)
			}
			if n := hits.Load(); n != 0 {
				t.Errorf("the command outside the project reached the network (%d requests)", n)
			}
			if b, err := os.ReadFile(filepath.Join(project, "fetched.txt")); err == nil && strings.Contains(string(b), "PROBE") {
				t.Errorf("fetched.txt holds the probe page: the fetch ran")
			}
			if c.cli == "claude" {
				if _, err := os.Stat(filepath.Join(project, "written.txt")); err != nil {
					t.Errorf("the write in the project did not happen: %v", err)
				}
				for _, f := range []string{"outside.txt", "listing.txt"} {
					if _, err := os.Stat(filepath.Join(project, "..", f)); err == nil {
						t.Errorf("%s was written outside the project", f)
					}
				}
			}
			if err := s.quit(); err != nil {
				t.Fatalf("quit: %v\nscreen:\n%s", err, s.screen())
			}
		})
	}
}

// startPresetCLI is startCLI with the preset's arguments and environment;
// pathPrefix, a directory, goes first on the CLI's PATH (Go, for the
// command on the list).
func startPresetCLI(t *testing.T, cli string, preset Preset, decide func(fakeprovider.Request) fakeprovider.Answer, pathPrefix string) (*cliSession, string) {
	t.Helper()
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
	// Codex runs commands in a login shell, whose /etc/profile sets PATH
	// afresh: the user's ~/.profile adds Go, as on a Go programmer's machine.
	if err := os.WriteFile(filepath.Join(home, ".profile"), []byte("export PATH=\""+pathPrefix+":$PATH\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := mustProfile(t, cli)
	env := append([]string{"PATH=" + pathPrefix + ":" + filepath.Dir(bin) + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + home,
		"LANG=C.UTF-8", "TZ=UTC", fakeagent.EnvOwner + "=" + strconv.Itoa(os.Getpid()), marker},
		seedConfig(t, cli, home, project, srv.URL())...)
	for k, v := range preset.Env {
		env = append(env, k+"="+v)
	}
	argv := p.Command(preset.Command(bin))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = p.Env(env), project
	s := &cliSession{t: t, cli: cli, marker: marker, p: p, srv: srv, cmd: cmd,
		readDone: make(chan struct{}), waitDone: make(chan struct{})}
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 200, Rows: 50})
	if err != nil {
		t.Fatalf("start %s: %v", cli, err)
	}
	s.ptmx = ptmx
	s.scr = protocol.NewScreen(testLogger(t), 200, 50, func(b []byte) { _, _ = ptmx.Write(b) })
	go s.read()
	go func() { _ = cmd.Wait(); close(s.waitDone) }()
	t.Cleanup(s.kill)
	return s, project
}
