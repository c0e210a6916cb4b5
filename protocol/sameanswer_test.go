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
