//go:build !e2e

package profile

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/wardenhq/warden/internal/tokenfile"
)

func testOptions(t *testing.T, home string) Options {
	state := t.TempDir()
	return Options{WardenBin: "/opt/my tools/warden", StateDir: state, Agent: "w1",
		Dir: filepath.Join(state, "agents", "w1"), Socket: filepath.Join(state, "hooks.sock"),
		Env: []string{"HOME=" + home, "PATH=/usr/bin"}}
}

func TestSettingsEnvAndErrors(t *testing.T) {
	o := testOptions(t, t.TempDir())
	args, env, files, err := Settings("plain", o)
	if err != nil || args != nil || len(files) != 0 {
		t.Fatalf("plain: %v %v %v", args, files, err)
	}
	want := []string{EnvAgent + "=w1", EnvStateDir + "=" + o.StateDir, EnvSocket + "=" + o.Socket}
	if !slices.Equal(env, want) {
		t.Errorf("env = %q, want %q", env, want)
	}
	if _, _, _, err := Settings("aider", o); err == nil || !strings.Contains(err.Error(), "aider") {
		t.Errorf("unknown profile: %v", err)
	}
	o.WardenBin = "warden"
	if _, _, _, err := Settings("claude", o); err == nil {
		t.Error("a relative warden path must be refused")
	}
}

// runShell runs a generated hook command line with sh, with a stand-in
// warden that prints its arguments one a line.
func runShell(t *testing.T, command, bin string) []string {
	t.Helper()
	stub := "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\n"
	if err := os.MkdirAll(filepath.Dir(bin), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte(stub), 0o700); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("/bin/sh", "-c", command).Output()
	if err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

func TestClaudeSettings(t *testing.T) {
	home := t.TempDir()
	userCmd := `printf '%s' "it's mine"`
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"),
		[]byte(`{"statusLine":{"type":"command","command":`+jsonString(userCmd)+`}}`), 0o600)
	o := testOptions(t, home)
	o.WardenBin = filepath.Join(t.TempDir(), "dir with 'quote'", "warden")
	args, _, files, err := Settings("claude", o)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(o.Dir, ClaudeSettingsFile)
	if !slices.Equal(args, []string{"--settings", path}) || files[path] == nil {
		t.Fatalf("args %q, files %v", args, files)
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string }
		}
		StatusLine struct{ Type, Command string }
	}
	if err := json.Unmarshal(files[path], &s); err != nil {
		t.Fatal(err)
	}
	for event, kind := range map[string]string{"Stop": KindClaudeStop, "StopFailure": KindClaudeStopFailure} {
		h := s.Hooks[event]
		if len(h) != 1 || len(h[0].Hooks) != 1 || h[0].Hooks[0].Type != "command" {
			t.Fatalf("%s hook: %+v", event, h)
		}
		if got := runShell(t, h[0].Hooks[0].Command, o.WardenBin); !slices.Equal(got, []string{"hook", kind}) {
			t.Errorf("%s runs warden with %q", event, got)
		}
	}
	// The user's own status line goes along as one argument.
	if got := runShell(t, s.StatusLine.Command, o.WardenBin); !slices.Equal(got, []string{"hook", KindClaudeStatus, userCmd}) {
		t.Errorf("statusLine runs warden with %q", got)
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestCodexSettings(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".codex"), 0o700)
	os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(`notify = ["notify-send", "-a", "codex"]`+"\n"), 0o600)
	o := testOptions(t, home)
	o.WardenBin = `/opt/a "b" \c/warden`
	args, _, files, err := Settings("codex", o)
	if err != nil || len(files) != 0 || len(args) != 2 || args[0] != "-c" {
		t.Fatalf("args %q files %v err %v", args, files, err)
	}
	var cfg struct{ Notify []string }
	if _, err := toml.Decode(args[1], &cfg); err != nil {
		t.Fatalf("-c %s is not TOML: %v", args[1], err)
	}
	want := []string{o.WardenBin, "hook", KindCodexNotify, "notify-send", "-a", "codex"}
	if !slices.Equal(cfg.Notify, want) {
		t.Errorf("notify = %q, want %q", cfg.Notify, want)
	}
	if got := CodexHome([]string{"HOME=/h", "CODEX_HOME=/c"}); got != "/c" {
		t.Errorf("CodexHome = %q", got)
	}
}

func TestCodexRollout(t *testing.T) {
	home := t.TempDir()
	day := filepath.Join(home, "sessions", "2026", "11", "22")
	os.MkdirAll(day, 0o700)
	line := testdata(t, "codex-token-count")
	body := `{"type":"session_meta"}` + "\n" + string(line) + `{"type":"response_item"}` + "\n"
	p := filepath.Join(day, "rollout-2026-11-22T03-24-19-abc-123.jsonl")
	os.WriteFile(p, []byte(body), 0o600)
	if got := tokenfile.CodexRollout(home, "abc-123"); got != p {
		t.Fatalf("CodexRollout = %q", got)
	}
	if tokenfile.CodexRollout(home, "*") != "" || tokenfile.CodexRollout(home, "other") != "" {
		t.Error("CodexRollout matched a wrong thread")
	}
	got, err := LastCodexTokenCount(p, 0)
	if err != nil || strings.TrimSpace(string(got)) != strings.TrimSpace(string(line)) {
		t.Errorf("LastCodexTokenCount = %s, %v", got, err)
	}
}

func TestGeminiSettings(t *testing.T) {
	home := t.TempDir()
	user := filepath.Join(home, ".gemini")
	os.MkdirAll(filepath.Join(user, "tmp"), 0o700)
	os.WriteFile(filepath.Join(user, "oauth_creds.json"), []byte(`{}`), 0o600)
	os.WriteFile(filepath.Join(user, "settings.json"), []byte(`{
  // the user's own hook stays
  "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "mine /* not a comment */"}]}]},
  "ui": {"theme": "Default"} /* trailing */
}`), 0o600)
	o := testOptions(t, home)
	for range 2 { // a second start renews the links
		_, env, files, err := Settings("gemini", o)
		if err != nil {
			t.Fatal(err)
		}
		overlay := filepath.Join(o.Dir, GeminiHomeDir)
		if !slices.Contains(env, "GEMINI_CLI_HOME="+overlay) {
			t.Errorf("env %q lacks GEMINI_CLI_HOME", env)
		}
		var s struct {
			Hooks map[string][]struct {
				Hooks []struct {
					Command string
					Env     map[string]string
				}
			}
			UI struct{ Theme string }
		}
		if err := json.Unmarshal(files[filepath.Join(overlay, ".gemini", "settings.json")], &s); err != nil {
			t.Fatal(err)
		}
		aa := s.Hooks["AfterAgent"]
		if len(aa) != 2 || aa[0].Hooks[0].Command != "mine /* not a comment */" || s.UI.Theme != "Default" {
			t.Errorf("user settings not kept: %+v", s)
		}
		if len(aa) == 2 && aa[1].Hooks[0].Env[EnvAgent] != "w1" {
			t.Errorf("warden's hook does not carry its env: %+v", aa[1])
		}
		if len(s.Hooks["AfterModel"]) != 1 {
			t.Errorf("AfterModel hook: %+v", s.Hooks["AfterModel"])
		}
		for _, name := range []string{"tmp", "oauth_creds.json"} {
			if target, err := os.Readlink(filepath.Join(overlay, ".gemini", name)); err != nil || target != filepath.Join(user, name) {
				t.Errorf("%s: link %q, %v", name, target, err)
			}
		}
		if _, err := os.Lstat(filepath.Join(overlay, ".gemini", "settings.json")); err == nil {
			t.Error("settings.json must be the generated file, not a link")
		}
	}
	if b, _ := os.ReadFile(filepath.Join(user, "settings.json")); !strings.Contains(string(b), "// the user's own") {
		t.Error("the user's settings.json changed")
	}
}
