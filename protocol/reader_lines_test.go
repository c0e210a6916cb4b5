//go:build !e2e

package protocol

import (
	"reflect"
	"strings"
	"testing"
)

func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") + "\r\n" }

func TestLinesPlainBlock(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	colored := strings.Replace(validBlock, "Status:", "\x1b[1mStatus:\x1b[0m", 1)
	feed(r, crlf("\x1b]0;✳ title\x07spinner ⠋\r\x1b[Kthinking done\n"+colored+"\n\nbye"), 3)
	c.expect(t, 1, 0, 0)
	if !reflect.DeepEqual(c.blocks[0], wantValid) {
		t.Fatalf("got %+v", c.blocks[0])
	}
	r.Flush()
	c.expect(t, 1, 0, 0)
}

func TestLinesBlockTakenAtQuiet(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	lines := strings.Split(validBlock, "\n")
	feed(r, crlf(strings.Join(lines[:5], "\n")), 7)
	r.Quiet() // still missing lines: it waits
	c.expect(t, 0, 0, 0)
	feed(r, crlf(strings.Join(lines[5:], "\n")), 7)
	c.expect(t, 0, 0, 0) // the last line could still be followed by Notes:
	r.Quiet()
	c.expect(t, 1, 0, 0)
	r.Quiet()
	r.Flush()
	c.expect(t, 1, 0, 0)
}

func TestLinesEchoOfTypedTextNeverCounts(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	// A first prompt: the preamble, plus a handoff that quotes the last
	// checkpoint as a valid block, plus CHECKPOINT COMPLETE alone on a line.
	prompt := Preamble(Task{ID: "T060", Title: "x", Lead: true}) + "\nLast checkpoint:\n" + validBlock + "\n" + CompleteMarker + "\n"
	r.Typed(prompt)
	feed(r, crlf(prompt), 5) // the tty echoes it
	r.Typed(Request("T060"))
	feed(r, crlf(Request("T060")), 5)
	r.Quiet()
	c.expect(t, 0, 0, 0)
	answer := strings.Replace(validBlock, "65%", "70%", 1)
	feed(r, crlf(answer), 5)
	r.Quiet()
	c.expect(t, 1, 0, 0)
	if c.blocks[0].Progress != 70 {
		t.Fatalf("progress %d", c.blocks[0].Progress)
	}
}

func TestLinesSameAnswerCountsOnlyAfterNewRequest(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	feed(r, crlf(validBlock+"\n"), 64)
	feed(r, crlf(validBlock+"\n"), 64) // unasked, same content, same epoch
	c.expect(t, 1, 0, 0)
	r.Typed(Request("T060"))
	feed(r, crlf(Request("T060")+"\n"+validBlock+"\n"), 64)
	c.expect(t, 2, 0, 0)
	feed(r, crlf(strings.Replace(validBlock, "65%", "66%", 1)+"\n"), 64) // a different answer
	c.expect(t, 3, 0, 0)
	r.Flush()
	c.expect(t, 3, 0, 0)
}

func TestLinesRejectionsAndFlush(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	feed(r, crlf(strings.Replace(validBlock, "65%", "250%", 1)+"\n"), 10)
	feed(r, crlf(strings.Replace(validBlock, "65%", "250%", 1)+"\n"), 10) // same rejection, once
	c.expect(t, 0, 1, 0)
	feed(r, "CHECKPOINT: T9\r\nStatus: testing\r\n", 10)
	r.Quiet()
	c.expect(t, 0, 1, 0)
	r.Flush() // EOF cuts the block off
	c.expect(t, 0, 2, 0)
	if !strings.Contains(c.rejects[0], "out of range") || !strings.Contains(c.rejects[1], "incomplete block") {
		t.Fatalf("rejects %q", c.rejects)
	}
}

func TestLinesCheckpointComplete(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	feed(r, crlf("I will print CHECKPOINT COMPLETE when done.\nCHECKPOINT COMPLETE!\n  CHECKPOINT COMPLETE and more"), 4)
	c.expect(t, 0, 0, 0)
	r.Typed("say\n" + CompleteMarker)
	feed(r, crlf("say\n"+CompleteMarker), 4) // echo
	c.expect(t, 0, 0, 0)
	feed(r, crlf("⏺ CHECKPOINT COMPLETE   "), 4)
	c.expect(t, 0, 0, 1)
}
