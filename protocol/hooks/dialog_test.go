package hooks

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
		{KindClaudeNotification, "claude-notification-agent-needs-input", "other", "Auto mode can't check actions"},
		{KindGeminiNotification, "gemini-notification-tool-permission", "permission", "Tool Confirm Shell Command requires execution: curl -s"},
		{KindClaudeStop, "claude-stop", "", ""},
		{KindGeminiAfterAgent, "gemini-after-agent", "", ""},
	}
	for _, c := range cases {
		b, err := os.ReadFile(filepath.Join("testdata", c.file+".json"))
		if err != nil {
			t.Fatal(err)
		}
		kind, text, ok := Waiting(c.kind, b)
		if c.want == "" {
			if ok {
				t.Errorf("%s: a dialog %s %q", c.file, kind, text)
			}
			continue
		}
		if !ok || kind != c.want || !strings.HasPrefix(text, c.text) {
			t.Errorf("%s: %v %s %q, want %s %q…", c.file, ok, kind, text, c.want, c.text)
		}
	}
	if _, _, ok := Waiting(KindClaudeNotification, []byte(`{"notification_type":"idle_prompt","message":"Claude is waiting for your input"}`)); ok {
		t.Error("idle_prompt (a turn ended) taken for a dialog")
	}
	if _, _, ok := Waiting(KindClaudePermission, []byte(`not json`)); ok {
		t.Error("bad JSON taken for a dialog")
	}
}
