//go:build !e2e

package docs_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/supervisor/config"
)

// The Set-up commands of the README are what CI runs: its two test lines,
// the fast tier then the end-to-end tier, are .ci/run's last two lines,
// byte for byte, and the example team the first command runs validates.
func TestDocsSetUpCommandsAreCIs(t *testing.T) {
	setup := section(t, "README.md", read(t, "README.md"), "## Set-up")
	var run string
	var tests []string
	for _, l := range strings.Split(setup, "\n") {
		cmd, _, _ := strings.Cut(l, "#")
		cmd = strings.TrimSpace(cmd)
		switch {
		case strings.HasPrefix(cmd, "go run "):
			run = cmd
		case strings.HasPrefix(cmd, "go vet "):
			tests = append(tests, cmd)
		}
	}
	if run != "go run ./cmd/warden run examples/team.toml" {
		t.Errorf("README Set-up runs %q", run)
	}
	want := []string{
		"go vet ./... && go test -race -count=1 ./...",
		"go vet -tags e2e ./... && go test -race -count=1 -p 4 -timeout 30m -tags e2e ./...",
	}
	if !slices.Equal(tests, want) {
		t.Errorf("README Set-up tests with\n%s\nwant the fast tier, then the end-to-end tier:\n%s",
			strings.Join(tests, "\n"), strings.Join(want, "\n"))
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(ci), "\n"), "\n")
	if last := lines[max(len(lines)-len(tests), 0):]; !slices.Equal(last, tests) {
		t.Errorf(".ci/run ends with\n%s\nnot the README's test commands\n%s", strings.Join(last, "\n"), strings.Join(tests, "\n"))
	}
	if _, err := config.Load(filepath.Join(root, "examples", "team.toml")); err != nil {
		t.Errorf("examples/team.toml: %v", err)
	}
}
