//go:build !e2e

package profile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// The protocol text goes where each CLI keeps it across a compaction of its
// context: Claude's system prompt, Codex's developer instructions (valid
// TOML on the command line), Gemini's global memory after the user's own.
func TestProtocolTextWhereItLasts(t *testing.T) {
	const text = "You are running under warden.\nCHECKPOINT REQUEST: <task id> \"quoted\" \\ back"
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o700)
	os.WriteFile(filepath.Join(home, ".gemini", "GEMINI.md"), []byte("Always use tabs.\n"), 0o600)

	o := testOptions(t, home)
	o.Protocol = text
	args, _, _, err := Settings("claude", o)
	if i := slices.Index(args, "--append-system-prompt"); err != nil || i < 0 || args[i+1] != text {
		t.Errorf("claude args %q, %v", args, err)
	}
	args, _, _, err = Settings("codex", o)
	i := slices.Index(args, "developer_instructions="+tomlString(text))
	if err != nil || i < 1 || args[i-1] != "-c" {
		t.Fatalf("codex args %q, %v", args, err)
	}
	var cfg struct {
		DeveloperInstructions string `toml:"developer_instructions"`
	}
	if _, err := toml.Decode(args[i], &cfg); err != nil || cfg.DeveloperInstructions != text {
		t.Errorf("codex -c value decodes to %q, %v", cfg.DeveloperInstructions, err)
	}
	_, _, files, err := Settings("gemini", o)
	var memory string
	for p, b := range files {
		if strings.HasSuffix(p, filepath.Join(".gemini", "GEMINI.md")) {
			memory = string(b)
		}
	}
	if err != nil || memory != "Always use tabs.\n\n"+text {
		t.Errorf("gemini memory %q, %v", memory, err)
	}
	o.Protocol = ""
	if args, _, _, _ := Settings("claude", o); slices.Contains(args, "--append-system-prompt") {
		t.Error("protocol text added though none was given")
	}
}
