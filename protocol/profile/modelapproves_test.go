//go:build !e2e

package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every setting under which a model approves the agent's actions is named,
// with what to set instead; a setting where a person or a rule decides is
// not.
func TestModelApproves(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CODEX_HOME", "")
	reviewed := filepath.Join(t.TempDir(), "codex-home")
	os.Mkdir(reviewed, 0o700)
	os.WriteFile(filepath.Join(reviewed, "config.toml"), []byte("model = \"o3\"\napprovals_reviewer = \"auto_review\" # a model\n[profiles.x]\n"), 0o600)
	inTable := filepath.Join(t.TempDir(), "codex-home")
	os.Mkdir(inTable, 0o700)
	os.WriteFile(filepath.Join(inTable, "config.toml"), []byte("[profiles.x]\napprovals_reviewer = \"auto_review\"\n"), 0o600)
	for _, c := range []struct {
		profile string
		argv    []string
		env     map[string]string
		want    []string // what each message names, in order; none: no message
	}{
		{"claude", []string{"claude"}, nil, []string{"no --permission-mode: Claude Code 2.1.332's default is auto mode"}},
		{"claude", []string{"claude", "--allowedTools", "Bash(go:*)"}, nil, []string{"no --permission-mode"}},
		{"claude", []string{"claude", "--permission-mode", "auto"}, nil, []string{"--permission-mode auto"}},
		{"claude", []string{"claude", "--permission-mode=auto"}, nil, []string{"--permission-mode auto"}},
		{"claude", []string{"claude", "--permission-mode", "acceptEdits"}, nil, nil},
		{"claude", []string{"claude", "--permission-mode", "dontAsk", "--allowedTools", "Edit(./**)"}, nil, nil},
		{"claude", []string{"claude", "--permission-mode", "manual"}, nil, nil},
		{"claude", []string{"claude", "--dangerously-skip-permissions"}, nil, nil},
		{"codex", []string{"codex", "--ask-for-approval", "never", "--sandbox", "workspace-write"}, nil, nil},
		{"codex", []string{"codex", "--approve-for-me"}, nil, []string{"--approve-for-me"}},
		{"codex", []string{"codex", "-c", `approvals_reviewer="auto_review"`}, nil, []string{`-c approvals_reviewer="auto_review"`}},
		{"codex", []string{"codex", "--config=approvals_reviewer=auto_review"}, nil, []string{`-c approvals_reviewer="auto_review"`}},
		{"codex", []string{"codex", "-c", `approvals_reviewer="user"`}, nil, nil},
		{"codex", []string{"codex"}, map[string]string{"CODEX_HOME": reviewed}, []string{reviewed + "/config.toml"}},
		// the command line's value wins over config.toml's
		{"codex", []string{"codex", "-c", `approvals_reviewer="user"`}, map[string]string{"CODEX_HOME": reviewed}, nil},
		// a profile's own value applies only with --profile
		{"codex", []string{"codex"}, map[string]string{"CODEX_HOME": inTable}, nil},
		{"gemini", []string{"gemini"}, nil, nil},
		{"plain", []string{"claude"}, nil, nil},
	} {
		got := ModelApproves(c.profile, c.argv, c.env)
		if len(got) != len(c.want) {
			t.Errorf("ModelApproves(%s, %q) = %q; want %d messages", c.profile, c.argv, got, len(c.want))
			continue
		}
		for i, m := range got {
			if !strings.Contains(m, c.want[i]) || !strings.Contains(m, ModelApprovesText) || !strings.Contains(m, "set ") {
				t.Errorf("ModelApproves(%s, %q)[%d] = %q; want it to name %q, say %q and what to set instead",
					c.profile, c.argv, i, m, c.want[i], ModelApprovesText)
			}
		}
	}
}
