//go:build !e2e

package protocol

import (
	"strings"
	"testing"
)

// A line longer than the reader reads of a line (64 KiB) is cut; a block
// holding one is rejected, its reason saying so, never recorded with the
// line cut as if whole (issue 22). Before, the record held the first 64 KiB
// of its Notes without a word. Lines after it, and the next block, are read
// as usual, whether the long line comes in one write or in pieces.
func TestLinesBlockWithACutLineIsRejected(t *testing.T) {
	long := strings.Repeat("word ", 14000) // 70,000 bytes
	for _, tc := range []struct{ name, block, in string }{
		{"notes", validBlock + "\nNotes: " + long, "(Notes)"},
		{"files modified", strings.Replace(validBlock, "Files Modified: a.go, b.go", "Files Modified: a.go, "+long, 1), "(Files Modified)"},
		{"an item", strings.Replace(validBlock, "- wire reader", "- "+long, 1), "(Remaining)"},
	} {
		for _, chunk := range []int{1 << 20, 4093} {
			c := newCollector()
			r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
			next := strings.Replace(validBlock, "65%", "70%", 1)
			feed(r, crlf("before\n"+long+"\n"+tc.block+"\n\n"+next+"\n"), chunk)
			r.Quiet()
			r.Flush()
			c.expect(t, 1, 1, 0)
			if c.blocks[0].Progress != 70 {
				t.Fatalf("%s: the next block: %+v", tc.name, c.blocks[0])
			}
			n := len(strings.TrimSpace(strings.SplitN(c.rejects[0], " | ", 2)[0]))
			if !strings.HasPrefix(c.rejects[0], "a line of ") || !strings.Contains(c.rejects[0][:n], tc.in+" is longer than the 64 KiB read of a line and was cut: not recorded") {
				t.Fatalf("%s, writes of %d: reject %.200q", tc.name, chunk, c.rejects[0])
			}
		}
	}
}
