//go:build !e2e

package protocol

import (
	"strings"
	"testing"
)

// A plain program under a tty prints while the tty still echoes what
// warden typed: its output lands inside the echo (the fake agent's "working
// on it" after the first prompt's "Your task:" line, cutting the template
// block anywhere — CI saw "Files Modified: <working on it"). The echo is
// still warden's text, and no cut of it is ever reported as a block or a
// rejection.
func TestLinesEchoCutByTheProgramNeverCounts(t *testing.T) {
	prompt := Preamble(Task{ID: "T1", Title: "x"})
	const said = "working on it\n"
	start := strings.Index(prompt, "CHECKPOINT: T1")
	for cut := start; cut <= len(prompt); cut++ {
		c := newCollector()
		r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
		r.Typed(prompt)
		feed(r, crlf(prompt[:cut]+said+prompt[cut:]), 1)
		r.Quiet()
		r.Quiet()
		r.Flush()
		r.Close()
		if b, rej, _ := c.counts(); b != 0 || rej != 0 {
			t.Errorf("cut at %d (%q|%q): %d blocks, rejects %q", cut, tail(prompt[:cut], 20), head(prompt[cut:], 20), b, c.rejects)
		}
	}
}

// An agent's own bad block that starts as the template does is still
// rejected, whatever comes after it: more output, a pause, the end, a
// request.
func TestLinesOwnBadBlockAfterTheEchoIsRejected(t *testing.T) {
	prompt := Preamble(Task{ID: "T1", Title: "x"})
	for _, tc := range []struct {
		name, answer, then string
		end                func(r *Reader)
	}{
		{"more output", "CHECKPOINT: T1\nStatus: testing\n", "done for now\n", nil},
		{"a placeholder, then output", "CHECKPOINT: T1\nStatus: implementing\nCompleted:\n- a\nRemaining:\n- b\nFiles Modified: none\nEstimated Progress: [N]%\n\n", "next\n", nil},
		{"a pause", "CHECKPOINT: T1\nStatus: implementing\nCompleted:\n- a\nRemaining:\n- b\nFiles Modified: none\nEstimated Progress: 250%\n\n", "", func(r *Reader) { r.Quiet() }},
		{"the end", "CHECKPOINT: T1\nStatus: testing\n", "", func(r *Reader) { r.Flush() }},
		{"a request", "CHECKPOINT: T1\nStatus: implementing\nCompleted:\n- a\nRemaining:\n- b\nFiles Modified: none\nEstimated Progress: 250%\n\n", "", func(r *Reader) { r.Typed(Request("T1")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCollector()
			r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
			defer r.Close()
			r.Typed(prompt)
			feed(r, crlf(prompt), 3)
			feed(r, crlf(tc.answer+tc.then), 3)
			if tc.end != nil {
				tc.end(r)
			}
			c.expect(t, 0, 1, 0)
		})
	}
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }
func head(s string, n int) string { return s[:min(n, len(s))] }
