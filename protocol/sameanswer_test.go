//go:build !e2e

package protocol

import (
	"strings"
	"testing"
)

// An agent answering every request with the same block, its transcript
// scrolling (an inline CLI: each answer printed under the last, older ones
// scrolled off the top and, past ScrollKeep, out of the parsed view): each
// request's answer is recorded exactly once, however long the transcript
// grows (issue 35: from minute 9 every other Codex request timed out, the
// copy that left the top of the view in the same parse as the new copy
// came in leaving the count unchanged). The same answer read again at
// later Quiets, or the screen redrawn, is no second record.
func TestSameAnswerToEveryRequestWhileTheTranscriptScrolls(t *testing.T) {
	t.Parallel() // CPU alone
	for _, keep := range []int{40, 57, 500} {
		c := newCollector()
		opts := c.options(ModeScreen, 80, 24)
		opts.ScrollKeep = keep
		r := NewReader(testLogger(t), opts)
		const requests = 120
		for i := range requests {
			r.Typed(Request("T060"))
			feed(r, "› "+Request("T060")+"\r\n\r\n", 64)
			r.Quiet()
			// Working rows of a length that varies, so that copies leave the
			// view at every phase of the answer's rows.
			feed(r, strings.Repeat("• working\r\n", i%7)+strings.Join(answerLines, "\r\n")+"\r\n\r\n", 97)
			r.Quiet()
			r.Quiet()
			for len(c.notify) > 0 {
				<-c.notify
			}
			if b, _, _ := c.counts(); b != i+1 {
				r.Close()
				t.Fatalf("ScrollKeep %d: after request %d, %d records; want one per request", keep, i+1, b)
			}
		}
		r.Flush()
		r.Close()
		c.expect(t, requests, 0, 0)
	}
}

// The same on the alternate screen: a TUI that shows the tail of its
// transcript and repaints it at every step, so that rows leave the top by a
// redraw, never by a scroll the terminal sees (Claude Code 2.1.332,
// OpenCode, Qwen Code, Copilot CLI). Once the screen held as many copies
// as it can, the copy that left the top went in the same repaint as the new
// one came in, and every request from the fourth timed out (issue 35's
// long run). Every other turn is fast: its answer is drawn before the
// session hears that the CLI took the request (Copilot CLI against the fake
// provider, which answers at once: 2 of 7 requests timed out in 3 minutes
// when the echo was looked for only then).
func TestSameAnswerToEveryRequestOnTheAlternateScreen(t *testing.T) {
	t.Parallel() // CPU alone
	for _, rows := range []int{30, 50} {
		c := newCollector()
		r := NewReader(testLogger(t), c.options(ModeScreen, 80, rows))
		s := newTUIStream(80, rows)
		s.say("ready")
		feed(r, s.take(), 4096)
		r.Quiet()
		const requests = 40
		for i := range requests {
			r.Typed(Request("T060"))
			s.say("> " + Request("T060"))
			// Every other turn is fast: its answer drawn before the session
			// hears that the turn began, the echo read alone before it.
			fast := i%2 == 1
			feed(r, s.take(), 4096)
			if !fast {
				r.Submitted() // its turn shows: the session's profile saw it
				r.Quiet()
			}
			for range i % 3 { // working rows of a length that varies
				s.say("• working")
			}
			s.answer(answerLines)
			feed(r, s.take(), 4096)
			if fast {
				r.Submitted()
			}
			r.Quiet()
			r.Quiet()
			for len(c.notify) > 0 {
				<-c.notify
			}
			if b, _, _ := c.counts(); b != i+1 {
				r.Close()
				t.Fatalf("%d rows: after request %d, %d records; want one per request", rows, i+1, b)
			}
		}
		r.Flush()
		r.Close()
		c.expect(t, requests, 0, 0)
	}
}

// The anchor never makes an answer of what was there before: on the same
// alternate screen, full of copies of the same answer, a request the CLI
// took (Submitted) before its echo was drawn — the last request line on the
// screen still an older one with its answer below — and then answered with
// words and no block is no record; the next request answered with the
// block is one.
func TestAnchorNeverRecordsAnOlderAnswer(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeScreen, 80, 30))
	defer r.Close()
	s := newTUIStream(80, 30)
	records := func() int {
		r.Quiet()
		r.Quiet()
		for len(c.notify) > 0 {
			<-c.notify
		}
		b, _, _ := c.counts()
		return b
	}
	for i := range 6 {
		r.Typed(Request("T060"))
		s.say("> " + Request("T060"))
		feed(r, s.take(), 4096)
		r.Submitted()
		s.answer(answerLines)
		feed(r, s.take(), 4096)
		if n := records(); n != i+1 {
			t.Fatalf("%d records after %d answers", n, i+1)
		}
	}
	r.Typed(Request("T060"))
	r.Submitted() // before its echo is drawn
	r.Quiet()
	s.say("> " + Request("T060"))
	s.say("I am still reading the task.")
	feed(r, s.take(), 4096)
	if n := records(); n != 6 {
		t.Fatalf("%d records after a request answered with no block, want 6", n)
	}
	r.Typed(Request("T060"))
	s.say("> " + Request("T060"))
	feed(r, s.take(), 4096)
	r.Submitted()
	s.answer(answerLines)
	feed(r, s.take(), 4096)
	if n := records(); n != 7 {
		t.Fatalf("%d records after the next answer, want 7", n)
	}
}

// With the CLI's input box known (ReaderOptions.Composer), a request's line
// above it is in the transcript: the CLI took the request even when the
// session never heard so (OpenCode started its turn after the submission's
// watch had given up: one identical answer in 94 unrecorded in issue 35's
// long run). Each answer is recorded without Submitted; the request typed
// into the box and not yet taken sets no anchor.
func TestAnEchoAboveTheBoxAnchorsWithoutSubmitted(t *testing.T) {
	c := newCollector()
	opts := c.options(ModeScreen, 80, 30)
	opts.Composer = func(rows []string) (int, int, bool) {
		for i := len(rows) - 1; i >= 0; i-- {
			if strings.HasPrefix(rows[i], "╭") {
				return i, i + 2, true
			}
		}
		return 0, 0, false
	}
	r := NewReader(testLogger(t), opts)
	defer r.Close()
	s := newTUIStream(80, 30)
	for i := range 12 {
		r.Typed(Request("T060"))
		s.say("> " + Request("T060"))
		feed(r, s.take(), 4096)
		r.Quiet()
		s.answer(answerLines)
		feed(r, s.take(), 4096)
		r.Quiet()
		r.Quiet()
		for len(c.notify) > 0 {
			<-c.notify
		}
		if b, _, _ := c.counts(); b != i+1 {
			t.Fatalf("after request %d, %d records; want one per request", i+1, b)
		}
	}
}
