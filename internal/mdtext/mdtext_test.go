//go:build !e2e

package mdtext

import (
	"strings"
	"testing"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/testrig/hostiletext"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"<script>alert(1)</script>":   `\<script\>alert(1)\</script\>`,
		"[x](javascript:alert(1))":    `\[x\](javascript:alert(1))`,
		"![i](javascript:x)":          `\!\[i\](javascript:x)`,
		"`rm -rf` & &lt; a|b":         "\\`rm -rf\\` \\& \\&lt; a\\|b",
		"<http://evil>":               `\<http://evil\>`,
		"**bold** _em_ ~~s~~ # h":     `\*\*bold\*\* \_em\_ \~\~s\~\~ \# h`,
		"snake_case_name in_progress": "snake_case_name in_progress",
		"- item":                      `\- item`,
		"+ item":                      `\+ item`,
		"===":                         `\===`,
		"12. step":                    `12\. step`,
		"3) step":                     `3\) step`,
		"a - b 1. c":                  "a - b 1. c",
		`back\slash`:                  `back\\slash`,
		"line\nbreak\x1b[2J":          `line break \[2J`,
		"":                            "",
		"fix foo<T>(x) && done":       `fix foo\<T\>(x) \&\& done`,
		"__init__.py":                 `\_\_init\_\_.py`,
		"> quote":                     `\> quote`,
		"[ref]: javascript:alert(1)":  `\[ref\]: javascript:alert(1)`,
		"a\u202e<b>":                  `a\<b\>`,
		"日本_語":                        "日本_語",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
	if Cell("") != "-" || Cell("-") != `\-` {
		t.Errorf("Cell: %q %q", Cell(""), Cell("-"))
	}
}

// Whatever it is given, every character Markdown acts on comes out
// escaped, and taking the escapes away gives back the plain text.
func TestEscapeLeavesNothingThatActs(t *testing.T) {
	for _, in := range []string{hostiletext.Text, hostiletext.Markup, hostiletext.Markup + hostiletext.Text + "\\\\<"} {
		out := Escape(in)
		for i := 0; i < len(out); i++ {
			c := out[i]
			if !strings.ContainsRune(acts, rune(c)) || c == '\\' {
				continue
			}
			n := 0
			for j := i - 1; j >= 0 && out[j] == '\\'; j-- {
				n++
			}
			if n%2 == 0 {
				t.Errorf("%q: %q at %d is not escaped:\n%s", in, c, i, out)
			}
		}
		var back strings.Builder
		for i := 0; i < len(out); i++ {
			if out[i] == '\\' && i+1 < len(out) {
				i++
			}
			back.WriteByte(out[i])
		}
		if back.String() != protocol.Plain(in) {
			t.Errorf("unescaped %q, want %q", back.String(), protocol.Plain(in))
		}
	}
	if Dangling(`a\\`) || !Dangling(`a\`) || !Dangling(`a\\\`) || Dangling("a") {
		t.Error("Dangling")
	}
}
