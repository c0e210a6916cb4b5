//go:build !e2e

package docs_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wardenhq/warden/supervisor/event"
)

var (
	testFunc  = regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]+)\(`)
	testNamed = regexp.MustCompile(`\b(Test[A-Z][A-Za-z0-9_]*)(…|\*)?`)
	codePath  = regexp.MustCompile("`([^`\\s]+)`")
)

// repoTests returns the name of every Test function of the repository.
func repoTests(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && p != root) {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(b), -1) {
			names[m[1]] = true
		}
		return nil
	})
	if err != nil || len(names) < 100 {
		t.Fatalf("reading the tests: %v (%d found)", err, len(names))
	}
	return names
}

// Every test a page names exists (TestX… and TestX* name those that start
// so): a page that cites a test cites one that runs.
func TestDocsNamedTestsExist(t *testing.T) {
	tests := repoTests(t)
	for _, page := range pages(t) {
		for _, m := range testNamed.FindAllStringSubmatch(read(t, page), -1) {
			name, prefix := m[1], m[2] != ""
			found := tests[name]
			for have := range tests {
				found = found || prefix && strings.HasPrefix(have, name)
			}
			if !found {
				t.Errorf("%s names %s%s, which no _test.go file holds", page, name, m[2])
			}
		}
	}
}

// repoDirs are the top-level directories a path in a page may start with
// to name a file of the repository (others name files in a state dir).
var repoDirs = []string{"cmd/", "runner/", "protocol/", "supervisor/", "internal/", "handoff/",
	"examples/", "scripts/", ".ci/"}

// Every file or directory of the repository a page names in a code span
// (`supervisor/ops.go`, `protocol/testdata/cli-*`) exists.
func TestDocsNamedPathsExist(t *testing.T) {
	checked := 0
	for _, page := range pages(t) {
		for _, m := range codePath.FindAllStringSubmatch(read(t, page), -1) {
			p := strings.TrimPrefix(m[1], "./")
			inRepo := false
			for _, d := range repoDirs {
				inRepo = inRepo || strings.HasPrefix(p, d)
			}
			if !inRepo || strings.Contains(p, ".warden") || strings.ContainsAny(p, "{<") {
				continue
			}
			checked++
			found, err := filepath.Glob(filepath.Join(root, strings.TrimSuffix(p, "/")))
			if err != nil || len(found) == 0 {
				t.Errorf("%s names `%s`, which is not in the repository", page, m[1])
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d paths checked: the pattern is broken", checked)
	}
}

// The events table of docs/files.md has a row for every event warden
// writes (supervisor/event's list) and none for an event it does not.
func TestDocsEveryEventIsDocumented(t *testing.T) {
	const page = "docs/files.md"
	rows := rowKeys(section(t, page, read(t, page), "## Events"))
	for _, name := range difference(event.Names, rows) {
		t.Errorf("%s: event %s has no row in the events table", page, name)
	}
	for _, name := range difference(rows, event.Names) {
		t.Errorf("%s: the events table has a row for %s, which warden never writes", page, name)
	}
	seen := map[string]bool{}
	for _, name := range rows {
		if seen[name] {
			t.Errorf("%s: event %s has two rows", page, name)
		}
		seen[name] = true
	}
}

// Every package of the repository (a directory holding a committed .go
// file) has a row in docs/layout.md, and every row names one.
func TestDocsLayoutNamesEveryPackage(t *testing.T) {
	const page = "docs/layout.md"
	out, err := exec.Command("git", "-C", root, "ls-files", "*.go").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v (the tests run in a git checkout)", err)
	}
	var pkgs []string
	for _, f := range strings.Fields(string(out)) {
		if dir := path.Dir(f); !strings.Contains("/"+dir+"/", "/testdata/") && !slices.Contains(pkgs, dir) {
			pkgs = append(pkgs, dir)
		}
	}
	var rows []string
	for _, l := range strings.Split(read(t, page), "\n") {
		cell, _, _ := strings.Cut(strings.TrimPrefix(l, "| "), " |")
		for _, m := range codePath.FindAllStringSubmatch(cell, -1) {
			rows = append(rows, m[1])
		}
	}
	for _, p := range difference(pkgs, rows) {
		t.Errorf("%s: package %s has no row", page, p)
	}
	for _, p := range difference(rows, pkgs) {
		t.Errorf("%s: a row for %s, which holds no Go file", page, p)
	}
}
