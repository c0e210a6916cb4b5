//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// warden init writes the usage-limit keys commented — on_limit and
// usage_limit_wait for the team, account for each agent — and the file
// validates with every one of them uncommented.
func TestInitWritesTheAccountKeysCommented(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "team.toml")
	if out, err := inDir(dir, "init", "--cli", "claude", "--cli", "codex", file).CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(file)
	text := string(b)
	for line, n := range map[string]int{"\n# on_limit = \"wait\"\n": 1, "\n# usage_limit_wait = \"1h\"\n": 1,
		"\n# account = \"claude-plan\"": 1, "\n# account = \"codex-plan\"": 1} {
		if got := strings.Count(text, line); got != n {
			t.Errorf("%q written %d times, want %d:\n%s", strings.TrimSpace(line), got, n, text)
		}
	}
	for _, key := range []string{"on_limit", "usage_limit_wait", "account"} {
		text = strings.ReplaceAll(text, "\n# "+key+" = ", "\n"+key+" = ")
	}
	uncommented := filepath.Join(dir, "uncommented.toml")
	if err := os.WriteFile(uncommented, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := warden("validate", uncommented).CombinedOutput()
	if exitCode(err) != 0 || !strings.Contains(string(out), ": ok: ") {
		t.Errorf("the team with its account keys uncommented: exit %d\n%s", exitCode(err), out)
	}
}
