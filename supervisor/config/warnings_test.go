//go:build !e2e

package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Warnings: what validates but will likely not work, each at its key.
func TestWarnings(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir) // no ~/.codex/config.toml of this machine's
	t.Setenv("CODEX_HOME", "")
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o700)
	for _, name := range []string{"mytool", "claude", "codex"} {
		os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o700)
	}
	os.WriteFile(filepath.Join(bin, "notexec"), []byte("#!/bin/sh\n"), 0o600)
	t.Setenv("PATH", bin)
	path := filepath.Join(dir, "team.toml")
	body := `name = "w"
checkpoint_interval = "10m"
stale_warning = "10m"
[[agent]]
name = "found"
command = ["mytool"]
[[agent]]
name = "missing"
command = ["no-such-tool", "--x"]
[[agent]]
name = "own-path"
command = ["ownpath-tool"]
env = { PATH = "` + dir + `/own" }
[[agent]]
name = "plain-exec"
command = ["notexec"]
[[agent]]
name = "asks"
profile = "claude"
command = ["claude", "--permission-mode", "default"]
[[agent]]
name = "unattended"
profile = "codex"
command = ["codex", "--ask-for-approval", "never"]
[[agent]]
name = "absolute"
command = ["/bin/sh"]
`
	os.Mkdir(filepath.Join(dir, "own"), 0o700)
	os.WriteFile(filepath.Join(dir, "own", "ownpath-tool"), []byte("#!/bin/sh\n"), 0o700)
	os.WriteFile(path, []byte(body), 0o600)
	team, ws, err := LoadWithWarnings(path)
	if err != nil || team == nil {
		t.Fatalf("LoadWithWarnings: %v", err)
	}
	var got []string
	for _, w := range ws {
		got = append(got, w.String())
	}
	want := []string{
		path + `:3:1: warning: stale_warning 10m0s is not above checkpoint_interval + checkpoint_timeout (10m30s)`,
		path + `:9:1: warning: agent "missing": command "no-such-tool" is not on PATH`,
		path + `:16:1: warning: agent "plain-exec": command "notexec" is not on PATH`,
		path + `:20:1: warning: agent "asks" (profile claude) has no permission setting that lets it work unattended`,
	}
	if len(got) != len(want) {
		t.Fatalf("warnings:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("warning %d:\n%s\nwant it to begin\n%s", i, got[i], want[i])
		}
	}
	if !strings.Contains(got[3], "--permission-mode acceptEdits") {
		t.Errorf("the permission warning does not say what to add: %s", got[3])
	}

	// A file without any of these has none; the defaults' ratios are fine.
	os.WriteFile(path, []byte("name = \"ok\"\n[[agent]]\nname = \"a\"\ncommand = [\"mytool\"]\n"), 0o600)
	if _, ws, err := LoadWithWarnings(path); err != nil || len(ws) != 0 {
		t.Errorf("clean file: %v, %v", ws, err)
	}
}

// Every setting under which a model approves an agent's actions is a
// warning at the agent's command, saying what to set instead.
func TestWarningsModelApproves(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("CODEX_HOME", "")
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o700)
	for _, name := range []string{"claude", "codex"} {
		os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o700)
	}
	t.Setenv("PATH", bin)
	reviewed := filepath.Join(dir, "codex-home")
	os.Mkdir(reviewed, 0o700)
	os.WriteFile(filepath.Join(reviewed, "config.toml"), []byte("approvals_reviewer = \"auto_review\"\n"), 0o600)
	path := filepath.Join(dir, "team.toml")
	body := `name = "w"
[[agent]]
name = "default-mode"
profile = "claude"
command = ["claude", "--allowedTools", "Bash(go:*)"]
[[agent]]
name = "auto"
profile = "claude"
command = ["claude", "--permission-mode", "auto"]
[[agent]]
name = "preset"
profile = "claude"
command = ["claude", "--permission-mode", "dontAsk", "--allowedTools", "Edit(./**)"]
[[agent]]
name = "for-me"
profile = "codex"
command = ["codex", "--approve-for-me"]
[[agent]]
name = "reviewer"
profile = "codex"
command = ["codex", "-c", 'approvals_reviewer="auto_review"']
[[agent]]
name = "config"
profile = "codex"
command = ["codex", "--ask-for-approval", "never"]
env = { CODEX_HOME = "` + reviewed + `" }
`
	os.WriteFile(path, []byte(body), 0o600)
	_, ws, err := LoadWithWarnings(path)
	if err != nil {
		t.Fatalf("LoadWithWarnings: %v", err)
	}
	var got []string
	for _, w := range ws {
		got = append(got, w.String())
	}
	want := []struct{ at, says string }{
		{":5:1:", `agent "default-mode" (profile claude): no --permission-mode`},
		{":9:1:", `agent "auto" (profile claude): --permission-mode auto`},
		{":17:1:", `agent "for-me" (profile codex): --approve-for-me`},
		{":21:1:", `agent "reviewer" (profile codex): -c approvals_reviewer="auto_review"`},
		{":25:1:", `agent "config" (profile codex): ` + reviewed + `/config.toml`},
	}
	if len(got) != len(want) {
		t.Fatalf("warnings:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], path+w.at+" warning: "+w.says) ||
			!strings.Contains(got[i], "a model approves your agent's actions") || !strings.Contains(got[i], "warden init writes") {
			t.Errorf("warning %d:\n%s\nwant it at %s, naming %s, saying a model approves and what to set instead", i, got[i], w.at, w.says)
		}
	}
}
