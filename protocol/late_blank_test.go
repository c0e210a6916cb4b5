//go:build !e2e

package protocol

import (
	"fmt"
	"strings"
	"testing"
)

// An empty line between a block and its late optional lines (issue 22): one
// blank line may sit inside a block, so the optional lines still complete
// the record it made — whether they come in the same burst, after a pause
// with the blank line before it, or after a pause with the blank line after
// it. Before, the blank line ended the block and the lines were dropped
// without a word.
func TestLinesLateOptionalLinesAfterABlankLineAmendTheRecord(t *testing.T) {
	for _, tc := range []struct {
		name string
		feed func(r *Reader)
	}{
		{"one burst", func(r *Reader) { feed(r, crlf(validBlock+"\n\n"+lateLines), 5) }},
		{"blank, pause", func(r *Reader) {
			feed(r, crlf(validBlock+"\n"), 5)
			r.Quiet()
			feed(r, crlf(lateLines), 5)
		}},
		{"pause, blank", func(r *Reader) {
			feed(r, crlf(validBlock), 5)
			r.Quiet()
			feed(r, crlf("\n"+lateLines), 5)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCollector()
			r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
			defer r.Close()
			tc.feed(r)
			r.Quiet()
			r.Flush()
			c.expect(t, 2, 0, 0)
			if c.blocks[0].Amends || c.blocks[0].Notes != "" {
				t.Fatalf("first report: %+v", c.blocks[0])
			}
			b := c.blocks[1]
			if !b.Amends || b.Notes != "late lines matter" || b.Resume != "run the tests first" ||
				len(b.Blockers) != 1 || b.Progress != 65 {
				t.Fatalf("the late lines after the blank line: %+v", b)
			}
		})
	}
}

// Read as one text (a screen, a hook's answer), a block with its optional
// lines after one blank line is one block, never two.
func TestOptionalLinesAfterOneBlankLineAreTheBlocks(t *testing.T) {
	b := parseOne(t, validBlock+"\n\n"+lateLines+"\n\nThat is all.")
	if b.Notes != "late lines matter" || len(b.Blockers) != 1 {
		t.Fatalf("%+v", b)
	}
	// An extra Key: value line after the blank line is taken for prose.
	b = parseOne(t, validBlock+"\n\nNext: I will run the tests")
	if b.Extra != nil {
		t.Fatalf("prose after the block read as its extra line: %q", b.Extra)
	}
}

// Optional lines that can no longer be told from a new block — after other
// output, or after two blank lines — are reported, never silently dropped:
// a rejection whose reason names the line, once per block. Before, only
// lines after a pause were.
func TestLinesLateOptionalLinesNoLongerTheBlocksAreReported(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"prose in the burst", validBlock + "\n\nthinking about the fixture…\n" + lateLines,
			"a Blockers: line came after its block was read and after other output: not recorded | Blockers:"},
		{"prose without a blank line", validBlock + "\nthinking about the fixture…\n" + lateLines,
			"a Blockers: line came after its block was read and after other output: not recorded | Blockers:"},
		{"two blank lines", validBlock + "\n\n\n" + lateLines,
			"a Blockers: line came after its block was read and after blank lines: not recorded | Blockers:"},
		{"its own line again", validBlock + "\nNotes: first\n\nNotes: second",
			"a Notes: line came after its block was read and the block has one already: not recorded | Notes: second"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCollector()
			r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
			defer r.Close()
			feed(r, crlf(tc.text), 5)
			r.Quiet()
			r.Flush()
			c.expect(t, 1, 1, 0)
			if got := strings.TrimSpace(c.rejects[0]); got != tc.want {
				t.Fatalf("reject %q\nwant   %q", got, tc.want)
			}
		})
	}
	// What warden typed stands between too.
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	feed(r, crlf(validBlock), 5)
	r.Quiet()
	r.Typed("please go on")
	feed(r, crlf("Notes: after the typing"), 5)
	c.expect(t, 1, 1, 0)
	if !strings.HasPrefix(c.rejects[0], "a Notes: line came after its block was read and after other output") {
		t.Fatalf("reject %q", c.rejects[0])
	}
}

// A TUI that draws its optional lines after the pause below an empty row:
// the record is completed, as without the empty row.
func TestScreenLateOptionalLinesAfterAnEmptyRowAmendTheRecord(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeScreen, 80, 30))
	defer r.Close()
	draw := func(row int, text string) {
		var b strings.Builder
		for i, l := range strings.Split(text, "\n") {
			fmt.Fprintf(&b, "\x1b[%d;1H\x1b[2K%s", row+i, l)
		}
		feed(r, b.String(), 11)
	}
	feed(r, "\x1b[?1049h\x1b[2J", 100)
	draw(3, validBlock)
	r.Quiet()
	c.expect(t, 1, 0, 0)
	draw(3+strings.Count(validBlock, "\n")+2, lateLines)
	r.Quiet()
	c.expect(t, 2, 0, 0)
	if b := c.blocks[1]; !b.Amends || b.Notes != "late lines matter" {
		t.Fatalf("after the pause: %+v", b)
	}
}
