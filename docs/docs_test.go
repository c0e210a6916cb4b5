// Package docs_test checks warden's user documentation — README.md and the
// pages of docs/ — against the code it describes: every link resolves, every
// event, team-file key, command and flag is documented, every test and path
// a page names exists, and the Set-up commands are the ones CI runs.
package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository, seen from this package's directory.
const root = ".."

// pages returns README.md and every docs/*.md, by their path from root.
func pages(t *testing.T) []string {
	t.Helper()
	found, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(found) == 0 {
		t.Fatalf("docs/*.md: %v (%d pages)", err, len(found))
	}
	out := []string{"README.md"}
	for _, f := range found {
		rel, _ := filepath.Rel(root, f)
		out = append(out, rel)
	}
	return out
}

// read returns the text of page (a path from root).
func read(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var fence = regexp.MustCompile("(?ms)^```.*?^```[ \t]*$")

// prose is text without its fenced code blocks.
func prose(text string) string { return fence.ReplaceAllString(text, "") }

// section returns the part of text under the heading that starts with
// heading ("## Events"), up to the next heading of that level or higher.
func section(t *testing.T, page, text, heading string) string {
	t.Helper()
	lines := strings.Split(text, "\n")
	level := strings.Count(strings.SplitN(heading, " ", 2)[0], "#")
	for i, l := range lines {
		if !strings.HasPrefix(l, heading) {
			continue
		}
		var b strings.Builder
		inCode := false
		for _, m := range lines[i+1:] {
			if strings.HasPrefix(m, "```") {
				inCode = !inCode
			}
			if h := strings.SplitN(m, " ", 2)[0]; !inCode && strings.Trim(h, "#") == "" && h != "" && len(h) <= level {
				break
			}
			b.WriteString(m + "\n")
		}
		return b.String()
	}
	t.Fatalf("%s has no heading %q", page, heading)
	return ""
}

var firstCell = regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")

// rowKeys returns the first cell of every table row whose first cell is
// one code span: "| `key` | …".
func rowKeys(text string) []string {
	var keys []string
	for _, m := range firstCell.FindAllStringSubmatch(text, -1) {
		keys = append(keys, m[1])
	}
	return keys
}

// difference returns the items of a not in b.
func difference(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}

const teamPage = "docs/team-file.md"
