//go:build e2e

package docs_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var (
	built    sync.Once
	binDir   string
	binPath  string
	buildErr error
)

// buildWarden builds cmd/warden once for the tests of this package (TestMain
// removes it).
func buildWarden(t *testing.T) string {
	t.Helper()
	built.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "warden-docs-"); buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "warden")
		build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", binPath, "./cmd/warden")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/warden: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	usageCommand = regexp.MustCompile(`(?m)^  ([a-z][a-z-]*) `)
	usageFlag    = regexp.MustCompile(`(?m)^  -([a-z][a-z-]*)`)
	docCommand   = regexp.MustCompile("(?m)^\\| `warden ([a-z][a-z-]*)")
)

// Every command `warden -h` lists has a row in docs/commands.md, every flag
// `warden COMMAND -h` lists is in that row as --flag, and every row is a
// command warden has.
func TestDocsEveryCommandAndFlagIsDocumented(t *testing.T) {
	const page = "docs/commands.md"
	bin := buildWarden(t)
	usage, _ := exec.Command(bin, "-h").CombinedOutput()
	var commands []string
	for _, m := range usageCommand.FindAllStringSubmatch(string(usage), -1) {
		commands = append(commands, m[1])
	}
	if len(commands) < 15 {
		t.Fatalf("warden -h lists %d commands:\n%s", len(commands), usage)
	}
	rows := map[string]string{}
	for _, l := range strings.Split(read(t, page), "\n") {
		if m := docCommand.FindStringSubmatch(l); m != nil {
			rows[m[1]] = l
		}
	}
	for _, c := range commands {
		row, ok := rows[c]
		if !ok {
			t.Errorf("%s: command %s has no row", page, c)
			continue
		}
		if c == "hook" { // its arguments are the CLI's hook's, not flags
			continue
		}
		help, _ := exec.Command(bin, c, "-h").CombinedOutput()
		for _, m := range usageFlag.FindAllStringSubmatch(string(help), -1) {
			if !strings.Contains(row, "--"+m[1]) {
				t.Errorf("%s: the row of warden %s does not name its flag --%s", page, c, m[1])
			}
		}
	}
	for c := range rows {
		if !strings.Contains(string(usage), "  "+c+" ") && c != "version" {
			t.Errorf("%s: a row for warden %s, which warden -h does not list", page, c)
		}
	}
}

// The team file warden init writes points at docs/team-file.md, which is
// there, and validates.
func TestDocsInitPointsAtTheTeamFilePage(t *testing.T) {
	bin := buildWarden(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "team.toml")
	if out, err := exec.Command(bin, "init", "--cli", "plain", file).CombinedOutput(); err != nil {
		t.Fatalf("warden init: %v\n%s", err, out)
	}
	text, _ := os.ReadFile(file)
	if !strings.Contains(string(text), "\n# Every key and its default: "+teamPage+" in warden's repository.\n") {
		t.Errorf("warden init's header does not point at %s:\n%s", teamPage, text)
	}
	if _, err := os.Stat(filepath.Join(root, teamPage)); err != nil {
		t.Error(err)
	}
	if out, err := exec.Command(bin, "validate", file).CombinedOutput(); err != nil {
		t.Errorf("warden validate: %v\n%s", err, out)
	}
}
