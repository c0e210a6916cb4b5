//go:build !e2e

package protocol

import (
	"strings"
	"testing"
)

// One answer seen on the terminal and through a CLI's hook is one record,
// whichever channel comes first: the ledger is the only judge.
func TestOfferAndScreenAreOneRecord(t *testing.T) {
	for _, hookFirst := range []bool{false, true} {
		c := newCollector()
		r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
		r.Typed(Request("T060"))
		if hookFirst {
			r.Offer("Done for now.\n" + validBlock)
		}
		feed(r, crlf(validBlock), 3)
		r.Quiet()
		if !hookFirst {
			r.Offer(validBlock)
		}
		c.expect(t, 1, 0, 0)
		r.Close()
	}
}

// A hook reports the turn that just ended: arriving after the next request
// was typed, it is the answer recorded before, not a new one. Two requests
// later the same unchanged answer is a new record (the agent repeated its
// latest checkpoint).
func TestOfferAfterTheNextRequestIsTheSameAnswer(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	r.Typed(Request("T060"))
	feed(r, crlf(validBlock), 3)
	r.Quiet()
	r.Typed(Request("T060"))
	r.Offer(validBlock) // late hook of the first answer
	c.expect(t, 1, 0, 0)
	r.Typed(Request("T060"))
	r.Offer(validBlock) // answered again, unchanged
	c.expect(t, 2, 0, 0)
}

// An older answer offered again after a later one never counts again.
func TestOfferOfAnOlderAnswerIsNotARecord(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	newer := strings.Replace(validBlock, "65%", "80%", 1)
	r.Typed(Request("T060"))
	r.Offer(validBlock)
	r.Typed(Request("T060"))
	r.Offer(newer)
	r.Typed(Request("T060"))
	r.Typed(Request("T060"))
	r.Offer(validBlock)
	c.expect(t, 2, 0, 0)
	if c.blocks[1].Progress != 80 {
		t.Fatalf("second record %+v", c.blocks[1])
	}
	r.Offer("CHECKPOINT: T060\nStatus: dreaming\n") // invalid hook text: nothing
	c.expect(t, 2, 0, 0)
}

// An answer is an answer through a hook too: the same block answered to
// every request, each request's hook arriving before the next request, is
// one record a request — the hook that comes after the next request is the
// late one only while the answer before has had none. Claude Code 2.1.332
// drew an echo and its answer in one write on a loaded machine (issue 35's
// long run): the screen could not tell that answer from the one before,
// and its Stop hook, taken for the last answer's late hook, was dropped.
func TestOfferOfTheSameAnswerToEachRequestIsARecordEach(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	for i := range 5 {
		r.Typed(Request("T060"))
		r.Offer(validBlock)
		c.expect(t, i+1, 0, 0)
	}
	// The screen's record, then its hook after the next request: the late
	// hook of that answer; the next hook is the next answer.
	r.Typed(Request("T060"))
	feed(r, crlf(validBlock), 3)
	r.Quiet()
	c.expect(t, 6, 0, 0)
	r.Typed(Request("T060"))
	r.Offer(validBlock) // late
	c.expect(t, 6, 0, 0)
	r.Offer(validBlock) // this request's answer
	c.expect(t, 7, 0, 0)
	r.Offer(validBlock) // its hook again: the same answer
	c.expect(t, 7, 0, 0)
}
