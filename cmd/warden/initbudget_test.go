//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// warden init writes the budget keys commented — max_cost, max_tokens,
// cost_warning, on_budget and a [[price]] row for the team, max_cost for
// the task — and the file validates with every one of them uncommented.
func TestInitWritesTheBudgetKeysCommented(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "team.toml")
	if out, err := inDir(dir, "init", "--cli", "claude", "--cli", "codex", file).CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(file)
	text := string(b)
	keys := []string{"max_cost", "max_tokens", "cost_warning", "on_budget", "[[price]]", "model", "input", "cached_input", "output"}
	for _, key := range keys {
		if !strings.Contains(text, "\n# "+key) {
			t.Errorf("%s not written commented:\n%s", key, text)
		}
	}
	if !strings.Contains(text, `"budget_exceeded", "team_done"]`) {
		t.Errorf("the commented [[notify]] does not tell a person of a budget reached:\n%s", text)
	}
	if n := strings.Count(text, "\n# max_cost = "); n != 2 {
		t.Errorf("max_cost written %d times, want 2 (the team's, the task's)", n)
	}
	for _, key := range keys {
		text = strings.ReplaceAll(text, "\n# "+key+" = ", "\n"+key+" = ")
	}
	text = strings.ReplaceAll(text, "\n# [[price]]\n", "\n[[price]]\n")
	uncommented := filepath.Join(dir, "budget.toml")
	if err := os.WriteFile(uncommented, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := warden("validate", uncommented).CombinedOutput()
	if exitCode(err) != 0 || !strings.Contains(string(out), ": ok: ") {
		t.Errorf("the team with its budget keys uncommented: exit %d\n%s\n%s", exitCode(err), out, text)
	}
}
