package protocol

import "strings"

// The request's echo as an anchor (ModeScreen). A TUI on the alternate
// screen that shows the tail of its transcript moves rows off the top by
// redrawing, never by a scroll the terminal sees: no row is kept as
// scrolled off, and once the screen holds as many copies of an unchanged
// answer as it can, the copy that leaves the top goes in the same redraw as
// the new one comes in. The copy count then stays where it was, and an
// agent answering every request with the same block went unrecorded from
// the fourth request on (Claude Code 2.1.332, OpenCode, Qwen Code, Copilot
// CLI: issue 35's long run). An answer is an answer: a block the CLI drew
// below the echo of the request it answers is that request's answer,
// whatever copies of it the screen held before.
//
// The anchor is taken once the CLI took the request (Submitted: its turn
// showed) and a read finds the last request line on the screen with no
// valid block below it: that line is the request's own echo, not an older
// request's line with its answer below (an older echo sits above the new
// one, and leaves the top before it). From then on, until the next request
// is typed, each valid block below the last request line is reported under
// the ledger's rules (once per epoch; warden's own echo never).

// anchorState is where the current request's anchor stands.
type anchorState int

const (
	anchorNone    anchorState = iota // no request, or not yet taken by the CLI
	anchorPending                    // taken: waiting to see its echo with nothing below it
	anchorSet                        // its echo seen: blocks below it are its answer
)

// Submitted tells the Reader that the CLI took the request typed last (a
// turn showed, or its input box emptied): its echo is on the screen or
// comes next.
func (r *Reader) Submitted() {
	r.mu.Lock()
	if !r.done && r.scr != nil && r.led.epoch > 0 && r.anchor == anchorNone {
		r.anchor = anchorPending
		r.view = r.viewLines()
		r.takeAnchor()
	}
	r.unlockAndDispatch()
}

// viewLines is the parsed view's text (parseView's, without parsing).
func (r *Reader) viewLines() []string {
	view := joinRows(r.scroll[r.viewStart():], r.view[:0])
	view = joinRows(r.scr.Rows(), view)
	for i, s := range view {
		view[i] = cutSidebar(s, r.opts.Cols)
	}
	return view
}

// takeAnchor sets a pending anchor when r.view's last request line has no
// valid block below it.
func (r *Reader) takeAnchor() {
	if r.anchor != anchorPending {
		return
	}
	at := lastRequestLine(r.view)
	if at < 0 {
		return
	}
	for _, c := range parseLines(r.view[at+1:]) {
		if c.valid() {
			return // an older request's line, its answer below it
		}
	}
	r.anchor = anchorSet
}

// reportAnchored reports each valid block below the last request line of
// r.view, once the anchor is set.
func (r *Reader) reportAnchored() {
	if r.anchor != anchorSet {
		return
	}
	at := lastRequestLine(r.view)
	if at < 0 {
		return
	}
	cands := parseLines(r.view[at+1:])
	for i := range cands {
		if cands[i].valid() {
			r.report(&cands[i], cands[i].key())
		}
	}
}

// lastRequestLine is the index of the last line of view holding a
// CHECKPOINT REQUEST, or -1.
func lastRequestLine(view []string) int {
	for i := len(view) - 1; i >= 0; i-- {
		if strings.Contains(view[i], RequestPrefix) {
			return i
		}
	}
	return -1
}
