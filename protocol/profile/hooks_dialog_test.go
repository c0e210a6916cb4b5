//go:build !e2e

package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hook payloads that announce a dialog, captured from the real CLIs
// (testdata/README.md), and the ones that do not.
func TestWaitingOnCapturedPayloads(t *testing.T) {
	cases := []struct {
		kind, file, want, text string
	}{
		{KindClaudePermission, "claude-permission-request", "permission", "approve Bash: curl -s http://127.0.0.1:9/probe > fetched.txt"},
		{KindClaudeNotification, "claude-notification-permission-prompt", "permission", "Claude needs your permission"},
		{KindClaudeNotification, "claude-notification-agent-needs-input", "permission", "Auto mode can't check actions"},
		{KindGeminiNotification, "gemini-notification-tool-permission", "permission", "Tool Confirm Shell Command requires execution: curl -s"},
		{KindClaudeStop, "claude-stop", "", ""},
		{KindGeminiAfterAgent, "gemini-after-agent", "", ""},
	}
	for _, c := range cases {
		b, err := os.ReadFile(filepath.Join("testdata", "hooks", c.file+".json"))
		if err != nil {
			t.Fatal(err)
		}
		p, _ := For(strings.SplitN(c.file, "-", 2)[0])
		d := p.Hook(c.kind, b).Dialog
		if c.want == "" {
			if d != nil {
				t.Errorf("%s: a dialog %+v", c.file, *d)
			}
			continue
		}
		if d == nil || d.Kind != c.want || !strings.HasPrefix(d.Text, c.text) {
			t.Errorf("%s: %+v, want %s %q…", c.file, d, c.want, c.text)
		}
	}
	claude, _ := For("claude")
	if d := claude.Hook(KindClaudeNotification, []byte(`{"notification_type":"idle_prompt","message":"Claude is waiting for your input"}`)).Dialog; d != nil {
		t.Error("idle_prompt (a turn ended) taken for a dialog")
	}
	if d := claude.Hook(KindClaudePermission, []byte(`not json`)).Dialog; d != nil {
		t.Error("bad JSON taken for a dialog")
	}
	if f := claude.Hook(KindGeminiAfterAgent, []byte(`{"prompt_response":"x"}`)); f.HasAnswer {
		t.Error("a Gemini kind read by the Claude profile")
	}
}
