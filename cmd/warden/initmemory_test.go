//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// warden init writes the memory keys commented — max_running and
// memory_floor for the team, memory_max for each agent — and the file
// validates with every one of them uncommented, with no warning.
func TestInitWritesTheMemoryKeysCommented(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "team.toml")
	if out, err := inDir(dir, "init", "--cli", "claude", "--cli", "plain", file).CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(file)
	text := string(b)
	for line, n := range map[string]int{"\n# max_running = 6\n": 1, "\n# memory_floor = \"2GB\"\n": 1, "\n# memory_max = \"4GB\"": 2} {
		if got := strings.Count(text, line); got != n {
			t.Errorf("%q written %d times, want %d:\n%s", strings.TrimSpace(line), got, n, text)
		}
	}
	for _, key := range []string{"max_running", "memory_floor", "memory_max"} {
		text = strings.ReplaceAll(text, "\n# "+key+" = ", "\n"+key+" = ")
	}
	uncommented := filepath.Join(dir, "uncommented.toml")
	if err := os.WriteFile(uncommented, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := warden("validate", uncommented).CombinedOutput()
	if exitCode(err) != 0 || !strings.Contains(string(out), ": ok: ") ||
		strings.Contains(string(out), "memory_") || strings.Contains(string(out), "max_running") {
		t.Errorf("the team with its memory keys uncommented: exit %d\n%s", exitCode(err), out)
	}
}
