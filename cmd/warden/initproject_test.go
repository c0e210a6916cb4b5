//go:build !e2e

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/wardenhq/warden/supervisor/config"
)

// warden init looks at the project beside the team file and lets its
// agents run the project's own commands without asking: npm test in a
// Node.js project, pytest in a Python one, cargo test in Rust — once
// refused at once in any project but Go's. Each preset still allows git
// and reading files, and nothing of another kind of project; the verify
// it suggests is the project's; the file validates with no warning but a
// CLI not installed here.
func TestInitPicksCommandsFromTheProject(t *testing.T) {
	for _, c := range []struct {
		files        []string
		allow, never []string // commands of the presets
		verify       string
	}{
		{[]string{"go.mod"}, []string{"go", "gofmt"}, []string{"npm", "cargo", "pytest", "make"}, `["go", "test", "./..."]`},
		{[]string{"package.json"}, []string{"npm", "npx", "node"}, []string{"go", "cargo", "pytest", "make", "yarn"}, `["npm", "test"]`},
		{[]string{"package.json", "yarn.lock"}, []string{"npm", "yarn"}, []string{"go", "pnpm"}, `["npm", "test"]`},
		{[]string{"pyproject.toml"}, []string{"python", "python3", "pytest"}, []string{"go", "npm", "cargo", "make", "uv"}, `["pytest"]`},
		{[]string{"pyproject.toml", "uv.lock"}, []string{"pytest", "uv"}, []string{"go", "poetry"}, `["pytest"]`},
		{[]string{"Cargo.toml"}, []string{"cargo"}, []string{"go", "npm", "pytest", "make"}, `["cargo", "test"]`},
		{[]string{"Makefile"}, []string{"make"}, []string{"go", "npm", "pytest", "cargo"}, `["make", "test"]`},
		{[]string{"go.mod", "Makefile"}, []string{"go", "gofmt", "make"}, []string{"npm"}, `["go", "test", "./..."]`},
		{nil, nil, []string{"go", "npm", "pytest", "cargo", "make"}, `["go", "test", "./..."]`},
	} {
		t.Run(strings.Join(append([]string{"in"}, c.files...), " "), func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range c.files {
				os.WriteFile(filepath.Join(dir, f), nil, 0o600)
			}
			file := filepath.Join(dir, "team.toml")
			var out, errOut bytes.Buffer
			if err := cmdInit([]string{"--cli", "claude", "--cli", "gemini", "--cli", "opencode", file}, &out, &errOut); err != nil {
				t.Fatalf("init: %v\n%s", err, errOut.String())
			}
			text, _ := os.ReadFile(file)
			var team struct {
				Agent []struct {
					Name    string
					Command []string
					Env     map[string]string
				}
			}
			if _, err := toml.Decode(string(text), &team); err != nil || len(team.Agent) != 3 {
				t.Fatalf("%v, %d agents\n%s", err, len(team.Agent), text)
			}
			claude, gemini, opencode := team.Agent[0].Command, team.Agent[1].Command, team.Agent[2].Env["OPENCODE_PERMISSION"]
			allowed := func(cmd string) []bool {
				return []bool{slices.Contains(claude, "Bash("+cmd+":*)"), slices.Contains(gemini, "run_shell_command("+cmd+")"),
					strings.Contains(opencode, `"`+cmd+` *": "allow"`)}
			}
			for _, cmd := range append(slices.Clone(c.allow), "git commit", "cat") {
				if a := allowed(cmd); slices.Contains(a, false) {
					t.Errorf("%s not allowed (claude, gemini, opencode): %v", cmd, a)
				}
			}
			for _, cmd := range append(slices.Clone(c.never), "git push") {
				if a := allowed(cmd); slices.Contains(a, true) {
					t.Errorf("%s allowed (claude, gemini, opencode): %v", cmd, a)
				}
			}
			if !strings.Contains(string(text), "\n# verify = "+c.verify+" ") {
				t.Errorf("verify suggested is not %s:\n%s", c.verify, text)
			}
			head := string(text[:bytes.Index(text, []byte("\nname = "))])
			switch {
			case c.files == nil && !strings.Contains(head, "no go.mod, package.json, pyproject.toml, Cargo.toml or Makefile"):
				t.Errorf("the header does not say no project was found:\n%s", head)
			case c.files != nil && !strings.Contains(head, "# The project: "+strings.Join(c.files[:1], "")):
				t.Errorf("the header does not name the project:\n%s", head)
			}
			if _, warnings, err := config.LoadWithWarnings(file); err != nil {
				t.Errorf("validate: %v", err)
			} else {
				for _, w := range warnings {
					if !strings.Contains(w.Msg, "is not on PATH") {
						t.Errorf("warning: %v", w)
					}
				}
			}
		})
	}
}
