//go:build !e2e

package protocol

import (
	"strings"
	"testing"
)

// A TUI's answer to a request that timed out, read only after the next
// request was typed (a loaded machine's reader lags the pty), stands
// above that request's echo: Block.Before says it answers an earlier
// request. The answer drawn below the echo is the request's own.
func TestScreenLateAnswerStandsBeforeTheNextEcho(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeScreen, 80, 50))
	defer r.Close()
	s := newTUIStream(80, 50)
	s.say("ready")
	r.Typed(Request("T060"))
	s.say("> " + Request("T060"))
	feed(r, s.take(), 300)
	r.Quiet()
	s.answer(answerLines) // the first request's answer, not read yet
	r.Typed(Request("T060"))
	s.say("> " + Request("T060"))
	feed(r, s.take(), 300)
	r.Quiet()
	r.Quiet()
	c.expect(t, 1, 0, 0)
	if !c.blocks[0].Before {
		t.Fatalf("the late answer above the second request's echo: Before false")
	}
	second := strings.Replace(validBlock, "Estimated Progress: 65%", "Estimated Progress: 70%", 1)
	s.answer(strings.Split(second, "\n"))
	feed(r, s.take(), 300)
	r.Quiet()
	r.Quiet()
	c.expect(t, 2, 0, 0)
	if b := c.blocks[1]; b.Before || b.Progress != 70 {
		t.Fatalf("the answer below the echo: %+v, want Before false at 70 %%", b)
	}
}
