//go:build e2e

package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/wardenhq/warden/protocol/profile"
)

// warden init writes each CLI's preset (protocol/profile's Preset, held to
// its promise with the real CLIs by TestRealPresetsNeverAsk) as the agent's
// command and environment, exactly, with what it allows and refuses in the comment above
// it, and no line of keys longer than a screen. In a directory with no
// project's files the presets allow git and reading files alone
// (TestInitPicksCommandsFromTheProject: the project's own commands).
func TestInitWritesThePresets(t *testing.T) {
	dir := t.TempDir()
	for _, cli := range []string{"claude", "codex", "gemini", "opencode"} {
		preset, ok := profile.PresetFor(cli, nil)
		if !ok {
			t.Fatalf("%s has no preset", cli)
		}
		file := filepath.Join(dir, cli+".toml")
		if out, err := inDir(dir, "init", "--cli", cli, file).CombinedOutput(); err != nil {
			t.Fatalf("init --cli %s: %v\n%s", cli, err, out)
		}
		b, _ := os.ReadFile(file)
		var team struct {
			Agent []struct {
				Command []string
				Env     map[string]string
			}
		}
		if _, err := toml.Decode(string(b), &team); err != nil || len(team.Agent) != 1 {
			t.Fatalf("%s: %v, %d agents\n%s", cli, err, len(team.Agent), b)
		}
		if got, want := team.Agent[0].Command, preset.Command(cli); !slices.Equal(got, want) {
			t.Errorf("%s: command %q, want the preset's %q", cli, got, want)
		}
		if got := team.Agent[0].Env; !maps.Equal(got, preset.Env) && (len(got) > 0 || len(preset.Env) > 0) {
			t.Errorf("%s: env %q, want the preset's %q", cli, got, preset.Env)
		}
		if !strings.Contains(string(b), "# Preset \"project\" (docs/agent-clis.md)") {
			t.Errorf("%s: no preset comment:\n%s", cli, b)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if len([]rune(line)) > 100 && !strings.HasPrefix(line, "#") {
				t.Errorf("%s: a line of %d characters: %s", cli, len([]rune(line)), line)
			}
		}
	}
}
