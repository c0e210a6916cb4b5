//go:build !e2e

package docs_test

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var (
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *#* *$`)
)

// withoutCode returns text with its code spans (`x`, “a `b` c“) emptied,
// so that what they quote is never taken for a link.
func withoutCode(text string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(text, '`')
		if i < 0 {
			return b.String() + text
		}
		b.WriteString(text[:i])
		n := len(text[i:]) - len(strings.TrimLeft(text[i:], "`"))
		ticks, rest := text[i:i+n], text[i+n:]
		end := -1
		for off := 0; ; {
			j := strings.Index(rest[off:], ticks)
			if j < 0 {
				break
			}
			j += off
			if k := j + n; k >= len(rest) || rest[k] != '`' {
				end = j
				break
			}
			off = j + n + len(rest[j+n:]) - len(strings.TrimLeft(rest[j+n:], "`"))
		}
		if end < 0 { // no closing run: the backticks are text
			b.WriteString(ticks)
			text = rest
			continue
		}
		text = rest[end+n:]
	}
}

// anchors returns the anchors GitHub gives the headings of a Markdown text:
// lower case, every character but letters, digits, spaces, '-' and '_'
// dropped, spaces made '-', a repeated one suffixed -1, -2, ….
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(prose(text), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// Every relative link of README.md and docs/*.md names a file or directory
// of the repository, and a #fragment names a heading of the page it links to.
func TestDocsLinksResolve(t *testing.T) {
	checked := 0
	for _, page := range pages(t) {
		text := read(t, page)
		body := withoutCode(prose(text))
		for _, m := range link.FindAllStringSubmatch(body, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, frag, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = path.Clean(path.Join(path.Dir(page), file))
				if strings.HasPrefix(dest, "../") {
					t.Errorf("%s: link %q leaves the repository", page, target)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
					t.Errorf("%s: link %q: %v", page, target, err)
					continue
				}
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: link %q has an anchor into a file that is not Markdown", page, target)
				continue
			}
			if !anchors(read(t, dest))[frag] {
				t.Errorf("%s: link %q: %s has no heading with the anchor #%s", page, target, dest, frag)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d relative links found: the link pattern is broken", checked)
	}
}

// No page sends a reader outside the repository, where its files are not.
func TestDocsNeverLinkOutsideTheRepository(t *testing.T) {
	for _, page := range pages(t) {
		if text := read(t, page); strings.Contains(text, "../shared/") || strings.Contains(text, "DESIGN") {
			t.Errorf("%s names ../shared/ or DESIGN, which are not in the repository", page)
		}
	}
}

// The anchors of a few headings, as GitHub makes them.
func TestDocsAnchorsAreGitHubs(t *testing.T) {
	text := "# warden\n## The CLIs' own channels\n## `[[agent]]`\n## /healthz\n## Runs: carrying on, starting over\n" +
		"```\n## not a heading\n```\n## Runs: carrying on, starting over\n"
	want := []string{"warden", "the-clis-own-channels", "agent", "healthz",
		"runs-carrying-on-starting-over", "runs-carrying-on-starting-over-1"}
	got := anchors(text)
	for _, a := range want {
		if !got[a] {
			t.Errorf("no anchor %q in %v", a, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("anchors %v, want %v", got, want)
	}
}

// Code spans are emptied, whatever their backticks; a lone backtick stays.
func TestDocsCodeSpansAreNotLinks(t *testing.T) {
	for in, want := range map[string]string{
		"a `[x](y)` b":            "a  b",
		"``a `[x](y)` b`` [l](m)": " [l](m)",
		"one ` tick [l](m)":       "one ` tick [l](m)",
		"`a` and ``b``":           " and ",
	} {
		if got := withoutCode(in); got != want {
			t.Errorf("withoutCode(%q) = %q, want %q", in, got, want)
		}
	}
}
