//go:build !e2e

package docs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/supervisor/config"
)

// The Set-up commands of the README are what CI runs: .ci/run's test
// command is the README's test line, byte for byte, and the example team
// the first command runs validates.
func TestDocsSetUpCommandsAreCIs(t *testing.T) {
	setup := section(t, "README.md", read(t, "README.md"), "## Set-up")
	var run, test string
	for _, l := range strings.Split(setup, "\n") {
		cmd, _, _ := strings.Cut(l, "#")
		cmd = strings.TrimSpace(cmd)
		switch {
		case strings.HasPrefix(cmd, "go run "):
			run = cmd
		case strings.HasPrefix(cmd, "go vet "):
			test = cmd
		}
	}
	if run != "go run ./cmd/warden run examples/team.toml" {
		t.Errorf("README Set-up runs %q", run)
	}
	if test != "go vet ./... && go test -race -count=1 -p 4 -timeout 18m ./..." {
		t.Errorf("README Set-up tests with %q", test)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(ci), "\n"), "\n")
	if last := lines[len(lines)-1]; last != test {
		t.Errorf(".ci/run ends with %q, not the README's test command %q", last, test)
	}
	if _, err := config.Load(filepath.Join(root, "examples", "team.toml")); err != nil {
		t.Errorf("examples/team.toml: %v", err)
	}
}
