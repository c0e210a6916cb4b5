//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/wardenhq/warden/internal/fakeagent"
)

// opsAgent is one fake agent of a team the operating commands run against.
type opsAgent struct {
	name, mode, profile string
	task                bool // a [[task]] of its own, T<n>
}

// opsTeam writes a team file of fake agents (header: team-level keys) and
// returns its path; the state dir is .warden beside it.
func opsTeam(t testing.TB, header string, agents ...opsAgent) string {
	t.Helper()
	owner := strings.TrimPrefix(fakeagent.Env("")[1], fakeagent.EnvOwner+"=")
	var b strings.Builder
	fmt.Fprintf(&b, "name = \"ops\"\nshutdown_timeout = \"2s\"\n%s\n", header)
	for i, a := range agents {
		argv := fakeagent.Command(a.mode)
		fmt.Fprintf(&b, "[[agent]]\nname = %q\ncommand = [%q, %q]\nenv = { %s = %q, %s = %q, GORACE = \"atexit_sleep_ms=0\" }\n",
			a.name, argv[0], argv[1], fakeagent.EnvMode, a.mode, fakeagent.EnvOwner, owner)
		if a.profile != "" {
			fmt.Fprintf(&b, "profile = %q\n", a.profile)
		}
		if a.task {
			fmt.Fprintf(&b, "[[task]]\nid = \"T%d\"\ntitle = \"task %d\"\nprompt = \"Do task %d.\"\nagent = %q\n", i+1, i+1, i+1, a.name)
		}
	}
	p := filepath.Join(t.TempDir(), "team.toml")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func stateOf(team string) string { return filepath.Join(filepath.Dir(team), ".warden") }

// teamEvents reads the team's events.jsonl.
func teamEvents(team string) []map[string]any {
	b, _ := os.ReadFile(filepath.Join(stateOf(team), "events.jsonl"))
	var out []map[string]any
	for _, l := range bytes.Split(b, []byte("\n")) {
		var e map[string]any
		if json.Unmarshal(l, &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// events returns the team's events called name (of agent, when set).
func eventsNamed(team, name, agent string) []map[string]any {
	var out []map[string]any
	for _, e := range teamEvents(team) {
		if e["event"] == name && (agent == "" || e["agent"] == agent) {
			out = append(out, e)
		}
	}
	return out
}

// waitEvents waits until the team wrote n events called name.
func waitEvents(t testing.TB, team, name, agent string, n int) []map[string]any {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if evs := eventsNamed(team, name, agent); len(evs) >= n {
			return evs
		}
	}
	t.Fatalf("no %d× %s events of %q; events:\n%v", n, name, agent, teamEvents(team))
	return nil
}

// wardenCmd runs a warden command to its end: stdout, stderr, exit code.
func wardenCmd(args ...string) (string, string, int) {
	var stdout, stderr bytes.Buffer
	cmd := warden(args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), exitCode(err)
}

// viewer is `warden attach` in a terminal of its own (a pty the test owns).
type viewer struct {
	cmd *exec.Cmd
	pty *os.File
	mu  sync.Mutex
	out bytes.Buffer
	end chan error
	// drained closes when the terminal has nothing more to read (attach
	// and everything holding its pty ended).
	drained chan struct{}
}

func attachPty(t testing.TB, args ...string) *viewer {
	t.Helper()
	v := &viewer{cmd: warden(append([]string{"attach"}, args...)...), end: make(chan error, 1), drained: make(chan struct{})}
	f, err := pty.StartWithSize(v.cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	v.pty = f
	go func() {
		defer close(v.drained)
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			v.mu.Lock()
			v.out.Write(buf[:n])
			v.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { v.end <- v.cmd.Wait() }()
	t.Cleanup(func() {
		v.cmd.Process.Kill()
		f.Close()
	})
	return v
}

func (v *viewer) output() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.out.String()
}

// waitFor waits until the viewer's terminal shows text (n times).
func (v *viewer) waitFor(t testing.TB, text string, n int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Count(v.output(), text) >= n {
			return
		}
	}
	t.Fatalf("the viewer never showed %d× %q; it shows:\n%q", n, text, v.output())
}

func (v *viewer) typeKeys(s string) { v.pty.Write([]byte(s)) }

// detach presses Ctrl-\ and waits for attach to end; it returns its exit code.
func (v *viewer) detach(t testing.TB) int {
	t.Helper()
	v.typeKeys("\x1c")
	select {
	case err := <-v.end:
		select { // its last words may still be in the terminal
		case <-v.drained:
		case <-time.After(2 * time.Second):
		}
		return exitCode(err)
	case <-time.After(10 * time.Second):
		t.Fatalf("attach did not end after Ctrl-\\; it shows:\n%q", v.output())
		return -1
	}
}

// psOf returns `warden ps --json` decoded.
func psOf(t testing.TB, team string) map[string]any {
	t.Helper()
	out, errOut, code := wardenCmd("ps", "--json", team)
	if code != 0 {
		t.Fatalf("warden ps: exit %d\n%s", code, errOut)
	}
	var ps map[string]any
	if err := json.Unmarshal([]byte(out), &ps); err != nil {
		t.Fatalf("warden ps --json: %v\n%s", err, out)
	}
	return ps
}

// agentOf returns one agent of a ps answer.
func agentOf(ps map[string]any, name string) map[string]any {
	for _, a := range ps["agents"].([]any) {
		if m := a.(map[string]any); m["name"] == name {
			return m
		}
	}
	return nil
}
