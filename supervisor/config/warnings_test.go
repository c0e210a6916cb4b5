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
