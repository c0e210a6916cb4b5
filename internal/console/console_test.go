//go:build !e2e

package console

import (
	"bytes"
	"strings"
	"testing"
)

func size(cols, rows int) Size { return func() (int, int) { return cols, rows } }

// Lines scroll above the footer; the footer is erased (cursor up its rows,
// clear to the end of the screen) and drawn again below them.
func TestFooterStaysBelowTheLines(t *testing.T) {
	var out, errOut bytes.Buffer
	c := New(&out, size(80, 24))
	c.Write([]byte("one\n"))
	c.Footer("== dash\n   agent a\n")
	c.Write([]byte("two\n"))
	c.Beside(&errOut).Write([]byte("log line\n"))
	c.Footer("== dash 2\n")
	want := "one\n" +
		"== dash\n   agent a\n" +
		"\x1b[2A\r\x1b[J" + "two\n" + "== dash\n   agent a\n" +
		"\x1b[2A\r\x1b[J" + /* log line on the other stream */ "== dash\n   agent a\n" +
		"\x1b[2A\r\x1b[J" + "== dash 2\n"
	if out.String() != want {
		t.Errorf("terminal:\n%q\nwant\n%q", out.String(), want)
	}
	if errOut.String() != "log line\n" {
		t.Errorf("other stream: %q", errOut.String())
	}
}

// Footer lines never wrap (erase could not count the rows) and the footer
// never outgrows the screen.
func TestFooterFitsTheScreen(t *testing.T) {
	var out bytes.Buffer
	c := New(&out, size(10, 5))
	c.Footer(strings.Repeat("x", 30) + "\n2\n3\n4\n5\n6\n")
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 || lines[0] != "xxxxxxxx…" || !strings.HasPrefix(lines[2], "… 4 more") {
		t.Errorf("footer %q", lines)
	}
}

// A write that ends inside a line holds the footer back until the line ends.
func TestNoFooterInsideALine(t *testing.T) {
	var out bytes.Buffer
	c := New(&out, size(80, 24))
	c.Write([]byte("partial"))
	c.Footer("== dash\n")
	if out.String() != "partial" {
		t.Errorf("footer drawn inside a line: %q", out.String())
	}
	c.Write([]byte(" end\n"))
	if out.String() != "partial end\n== dash\n" {
		t.Errorf("after the line ended: %q", out.String())
	}
}
