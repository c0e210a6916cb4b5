//go:build !e2e

package protocol

import (
	"fmt"
	"strings"
	"testing"
)

const lateLines = "Blockers:\n- the fixture server is down\nNotes: late lines matter\nResume: run the tests first"

// The block is taken at a pause; its optional lines come after the pause.
// They reopen it: the reader reports the completed block as an amendment of
// the record it made, so the record gets them, and it is still one answer.
func TestLinesLateOptionalLinesAmendTheRecord(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	feed(r, crlf(validBlock), 5)
	r.Quiet()
	c.expect(t, 1, 0, 0)
	if c.blocks[0].Amends || c.blocks[0].Notes != "" {
		t.Fatalf("first report: %+v", c.blocks[0])
	}
	feed(r, crlf(lateLines)+"\r\n", 5)
	r.Quiet()
	c.expect(t, 2, 0, 0)
	b := c.blocks[1]
	if !b.Amends || b.Notes != "late lines matter" || b.Resume != "run the tests first" ||
		len(b.Blockers) != 1 || b.Blockers[0] != "the fixture server is down" || b.Progress != 65 {
		t.Fatalf("the late lines: %+v", b)
	}
	// The completed block repeated is no new answer, nor the first part.
	feed(r, crlf(validBlock+"\n"+lateLines)+"\r\n", 5)
	r.Quiet()
	feed(r, crlf(validBlock)+"\r\n", 5)
	r.Quiet()
	c.expect(t, 2, 0, 0)
}

// Optional lines that come after other output cannot belong to the block
// any more: they are reported as dropped, never silently.
func TestLinesLateOptionalLinesAfterOtherOutputAreReported(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	feed(r, crlf(validBlock), 5)
	r.Quiet()
	feed(r, crlf("thinking…\nNotes: too late"), 5)
	c.expect(t, 1, 1, 0)
	if !strings.Contains(c.rejects[0], "Notes: line came after its block was read") {
		t.Fatalf("reject: %q", c.rejects[0])
	}
	// Prose long after the block is just text.
	feed(r, crlf(strings.Repeat("more work\n", lateWindow)+"Notes: prose"), 5)
	c.expect(t, 1, 1, 0)
}

// A TUI draws the required lines, pauses, then draws the optional lines
// below them: the screen read after the pause completes the record.
func TestScreenLateOptionalLinesAmendTheRecord(t *testing.T) {
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
	draw(3+strings.Count(validBlock, "\n")+1, lateLines)
	r.Quiet()
	c.expect(t, 2, 0, 0)
	if b := c.blocks[1]; !b.Amends || b.Notes != "late lines matter" {
		t.Fatalf("after the pause: %+v", b)
	}
	for range 5 { // repainted: nothing new
		feed(r, "\x1b[2J", 10)
		draw(3, validBlock+"\n"+lateLines)
		r.Quiet()
	}
	c.expect(t, 2, 0, 0)
}

// A hook that hands over the whole answer after the screen showed its first
// part completes the record too.
func TestHookCompletesAnAnswerReadEarlyOnScreen(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	feed(r, crlf(validBlock), 5)
	r.Quiet()
	r.Offer("Here it is:\n\n" + validBlock + "\n" + lateLines)
	c.expect(t, 2, 0, 0)
	if !c.blocks[1].Amends {
		t.Fatalf("hook: %+v", c.blocks[1])
	}
}

// A different answer is never an amendment, whatever its optional lines.
func TestNewAnswerIsNoAmendment(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	feed(r, crlf(validBlock)+"\r\n", 5)
	other := strings.Replace(validBlock, "65%", "70%", 1)
	feed(r, crlf(other+"\n"+lateLines)+"\r\n", 5)
	c.expect(t, 2, 0, 0)
	if c.blocks[1].Amends {
		t.Fatalf("a new answer reported as an amendment: %+v", c.blocks[1])
	}
}

// A record that was not saved is taken back: the same answer given again
// counts, in the same epoch.
func TestForgottenRecordCountsAgain(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	feed(r, crlf(validBlock)+"\r\n", 5)
	feed(r, crlf(validBlock)+"\r\n", 5)
	c.expect(t, 1, 0, 0) // the same answer twice in one epoch: once
	r.Forget(c.blocks[0])
	feed(r, crlf(validBlock)+"\r\n", 5)
	c.expect(t, 2, 0, 0)
	feed(r, crlf(validBlock)+"\r\n", 5)
	c.expect(t, 2, 0, 0)
}

// A flood of distinct answers: every one counts once, and the ledger
// remembers no more than maxRemembered of them.
func TestLedgerMemoryIsBounded(t *testing.T) {
	c := newCollector()
	c.notify = make(chan struct{}, 3*maxRemembered)
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	n := 3 * maxRemembered
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "CHECKPOINT: T1\nStatus: implementing\nCompleted:\n- step %d\nRemaining:\n- more\nFiles Modified: a.go\nEstimated Progress: %d%%\n\n", i, i%100)
	}
	feed(r, crlf(b.String()), 4096)
	c.expect(t, n, 0, 0)
	r.mu.Lock()
	defer r.mu.Unlock()
	if got := r.led.records.len(); got > maxRemembered {
		t.Fatalf("the ledger remembers %d records, more than %d", got, maxRemembered)
	}
	if got := r.led.recorded.len(); got > maxRemembered {
		t.Fatalf("the ledger remembers %d reports, more than %d", got, maxRemembered)
	}
}
