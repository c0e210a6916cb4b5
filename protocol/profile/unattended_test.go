//go:build !e2e

package profile

import "testing"

func TestUnattended(t *testing.T) {
	for _, c := range []struct {
		profile string
		argv    []string
		want    bool
	}{
		{"plain", []string{"aider"}, true},
		{"claude", []string{"claude"}, false},
		{"claude", []string{"claude", "--permission-mode", "default"}, false},
		{"claude", []string{"claude", "--permission-mode", "acceptEdits"}, true},
		{"claude", []string{"claude", "--permission-mode=bypassPermissions"}, true},
		{"claude", []string{"claude", "--allowedTools", "Bash(git *)"}, true},
		{"claude", []string{"claude", "--dangerously-skip-permissions"}, true},
		{"codex", []string{"codex"}, false},
		{"codex", []string{"codex", "--ask-for-approval", "on-request"}, false},
		{"codex", []string{"codex", "--ask-for-approval", "never", "--sandbox", "workspace-write"}, true},
		{"codex", []string{"codex", "-a", "never"}, true},
		{"codex", []string{"codex", "-c", `approval_policy="never"`}, true},
		{"codex", []string{"codex", "-c", `model="o3"`}, false},
		{"codex", []string{"codex", "--full-auto"}, true},
		// a model answers: unattended, and ModelApproves warns
		{"codex", []string{"codex", "--approve-for-me"}, true},
		{"codex", []string{"codex", "-c", `approvals_reviewer="auto_review"`}, true},
		{"gemini", []string{"gemini"}, false},
		{"gemini", []string{"gemini", "--approval-mode", "default"}, false},
		{"gemini", []string{"gemini", "--approval-mode", "auto_edit"}, true},
		{"gemini", []string{"gemini", "--approval-mode=yolo"}, true},
		{"gemini", []string{"gemini", "--policy", "p.toml"}, true},
		// the flag's value is not itself a flag
		{"claude", []string{"claude", "-p", "--permission-mode"}, false},
	} {
		ok, hint := Unattended(c.profile, c.argv, nil)
		if ok != c.want || (!ok && hint == "") {
			t.Errorf("Unattended(%s, %q) = %v, %q; want %v (and a hint when false)", c.profile, c.argv, ok, hint, c.want)
		}
	}
}
