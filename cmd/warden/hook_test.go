//go:build e2e

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/hookbus"
	statedir "github.com/wardenhq/warden/supervisor/state"
)

// TestHookEveryKind runs `warden hook KIND` as the CLIs do, on the payloads
// captured from them, and checks what reaches the hook bus and what the
// CLI gets on stdout.
func TestHookEveryKind(t *testing.T) {
	defer proctest.AssertNone(t)
	state := t.TempDir()
	srv, err := hookbus.Listen(hclog.NewNullLogger(), statedir.NewLayout(state).HookSocket())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	td := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "protocol", "profile", "testdata", "hooks", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	// A Codex home whose rollout file the notify hook finds by thread id.
	codexHome := t.TempDir()
	_, thread, _ := profile.CodexNotify([]byte(td("codex-notify")))
	day := filepath.Join(codexHome, "sessions", "2026", "11", "22")
	os.MkdirAll(day, 0o700)
	os.WriteFile(filepath.Join(day, "rollout-2026-11-22T03-24-19-"+thread+".jsonl"), []byte(td("codex-token-count")+"\n"), 0o600)

	cases := []struct {
		kind, stdin, arg, stdout string
		want                     []string // kinds that must arrive
	}{
		{kind: profile.KindClaudeStop, stdin: td("claude-stop"), want: []string{profile.KindClaudeStop}},
		{kind: profile.KindClaudeStopFailure, stdin: `{"hook_event_name":"StopFailure","error":"rate_limit"}`, want: []string{profile.KindClaudeStopFailure}},
		{kind: profile.KindClaudeStatus, stdin: td("claude-status"), stdout: "warden: 15% context\n", want: []string{profile.KindClaudeStatus}},
		{kind: profile.KindCodexNotify, arg: td("codex-notify"), want: []string{profile.KindCodexNotify, profile.KindCodexTokenCount}},
		{kind: profile.KindCodexNotify, arg: td("codex-notify-title"), want: []string{profile.KindCodexNotify}},
		{kind: profile.KindGeminiAfterAgent, stdin: td("gemini-after-agent"), want: []string{profile.KindGeminiAfterAgent}},
		{kind: profile.KindGeminiAfterModel, stdin: td("gemini-after-model"), want: []string{profile.KindGeminiAfterModel}},
	}
	for _, c := range cases {
		args := []string{"hook", c.kind}
		if c.arg != "" {
			args = append(args, c.arg)
		}
		cmd := warden(args...)
		cmd.Env = append(cmd.Env, hookbus.EnvAgent+"=w1", hookbus.EnvStateDir+"="+state,
			hookbus.EnvSocket+"="+srv.Path(), "CODEX_HOME="+codexHome)
		cmd.Stdin = strings.NewReader(c.stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil || stdout.String() != c.stdout || stderr.Len() != 0 {
			t.Errorf("%s: %v, stdout %q (want %q), stderr %q", c.kind, err, stdout.String(), c.stdout, stderr.String())
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s took %v", c.kind, d)
		}
		for _, want := range c.want {
			select {
			case m := <-srv.Messages():
				if m.Kind != want || m.Agent != "w1" || len(m.Payload) == 0 {
					t.Errorf("%s: got %s from %q (%d bytes), want %s", c.kind, m.Kind, m.Agent, len(m.Payload), want)
				}
				if want == profile.KindCodexTokenCount {
					if pct, ok := profile.CodexTokenCount(m.Payload); !ok || pct != 50 {
						t.Errorf("token count %v %v", pct, ok)
					}
				}
			case <-time.After(3 * time.Second):
				t.Fatalf("%s: no %s message", c.kind, want)
			}
		}
	}
	select {
	case m := <-srv.Messages():
		t.Errorf("unexpected message %s", m.Kind)
	default:
	}
	if _, err := os.Stat(filepath.Join(state, "logs", "hook.log")); err == nil {
		b, _ := os.ReadFile(filepath.Join(state, "logs", "hook.log"))
		t.Errorf("hook logged failures:\n%s", b)
	}
}

// TestHookWithoutSupervisorSpools: no server, no env: exit 0, nothing printed.
// The hook runs as an agent's own process would (leading its session, with
// a runner tag): a hook outside every agent spools nothing.
func TestHookWithoutSupervisorSpools(t *testing.T) {
	defer proctest.AssertNone(t)
	state := t.TempDir()
	cmd := warden("hook", profile.KindClaudeStop)
	cmd.Env = append(cmd.Env, hookbus.EnvAgent+"=w1", hookbus.EnvStateDir+"="+state,
		hookbus.EnvSocket+"="+filepath.Join(state, "hooks.sock"), runner.RunnerTagEnv+"=1.1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stdin = strings.NewReader(`{"last_assistant_message":"hi"}`)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("hook: %v, %q", err, out)
	}
	msgs, _, err := hookbus.Drain(state)
	if err != nil || len(msgs) != 1 || profile.ClaudeStop(msgs[0].Payload) != "hi" {
		t.Errorf("spool: %+v, %v", msgs, err)
	}
	out, err := warden("hook").CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Errorf("hook without kind or env: %v, %q", err, out)
	}
}
