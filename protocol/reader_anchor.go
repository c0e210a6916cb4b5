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
// The anchor is set once the Reader saw the request's echo with no valid
// block below it — the last request line on the screen above the CLI's
// input box (ReaderOptions.Composer: the box holds the request while it is
// typed) with nothing but a turn's beginnings under it — and the CLI took
// the request: Submitted (its turn showed, or its input box emptied), or
// that line was seen above the box, in the transcript. It is
// looked for at each write from the request on, until seen: a fast turn
// draws its answer before the session hears that the request was taken, so
// a look at Submitted alone finds the echo with its answer below, which an
// older request's line with its answer looks the same as. Once set, until
// the next request is typed, each valid block below the last request line
// is reported under the ledger's rules (once per epoch; warden's own echo
// never): the last request line is then this request's echo, an older one
// sitting above it and leaving the top before it.

// anchorState is where the current request's anchor stands.
type anchorState int

const (
	anchorNone  anchorState = iota // no request typed yet
	anchorWatch                    // a request typed: its bare echo and Submitted looked for
	anchorSet                      // both seen: blocks below its echo are its answer
)

// Submitted tells the Reader that the CLI took the request typed last (a
// turn showed, or its input box emptied): its echo is on the screen or
// comes next.
func (r *Reader) Submitted() {
	r.mu.Lock()
	if !r.done && r.scr != nil && r.anchor == anchorWatch {
		r.submitted = true
		r.lookForEcho()
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

// lookForEcho looks at the screen above the input box for the request's
// echo with no valid block below it (skipped inside a synchronized frame:
// half drawn), and sets the anchor once that was seen and the request was
// taken.
func (r *Reader) lookForEcho() {
	if r.anchor != anchorWatch {
		return
	}
	if in, _ := r.scr.InFrame(); !r.sawEcho && !in {
		rows := r.scr.Rows()
		r.echoRows = r.echoRows[:0]
		for _, row := range rows {
			r.echoRows = append(r.echoRows, row.Text)
		}
		box := false
		if r.opts.Composer != nil {
			if from, _, ok := r.opts.Composer(r.echoRows); ok && from >= 0 && from <= len(r.echoRows) {
				r.echoRows, box = r.echoRows[:from], true
			}
		}
		r.sawEcho = bareRequestLine(r.echoRows)
		// Above the CLI's own input box, the request's line is in the
		// transcript: the CLI took it, whether or not the session heard so
		// (OpenCode started a turn after the submission's watch gave up).
		r.echoAboveBox = r.sawEcho && box
	}
	if r.sawEcho && (r.submitted || r.echoAboveBox) {
		r.anchor = anchorSet
	}
}

// bareRequestLine reports whether the last request line of rows has no
// valid block below it.
func bareRequestLine(rows []string) bool {
	at := lastRequestLine(rows)
	if at < 0 {
		return false
	}
	for _, c := range parseLines(rows[at+1:]) {
		if c.valid() {
			return false // an older request's line, its answer below it
		}
	}
	return true
}

// belowLastRequest parses the blocks below the last request line of
// r.view (parseView's) once a request was typed: what reportAnchored
// reports, and what a block must be among not to stand before the last
// echo (Block.Before). ok is false when no request was typed or no
// request line shows (a block then stands below none).
func (r *Reader) belowLastRequest() (cands []candidate, ok bool) {
	if r.anchor == anchorNone {
		return nil, false
	}
	at := lastRequestLine(r.view)
	if at < 0 {
		return nil, false
	}
	return parseLines(r.view[at+1:]), true
}

// reportAnchored reports each valid block of below (belowLastRequest's),
// once the anchor is set.
func (r *Reader) reportAnchored(below []candidate) {
	if r.anchor != anchorSet {
		return
	}
	for i := range below {
		if below[i].valid() {
			r.report(&below[i], below[i].key())
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
