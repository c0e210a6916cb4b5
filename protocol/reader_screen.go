package protocol

import (
	"bytes"
	"strings"
)

// ModeScreen: bytes go through the emulator; rows that scroll off the top
// are kept (the last ScrollKeep of them) and parsed together with the visible
// screen at Quiet, as one view.

func (r *Reader) writeScreen(p []byte) {
	// A TUI that leaves its alternate screen (on its way out, most often)
	// takes what it showed with it: the screen as it was is kept for Tail.
	for r.scr.AltScreen() {
		i, n := altLeaveAt(p)
		if i < 0 {
			break
		}
		r.feedScreen(p[:i])
		if rows := joinRows(r.scr.Rows(), nil); shows(rows) {
			r.tail.left = rows
		}
		r.feedScreen(p[i : i+n])
		p = p[i+n:]
	}
	r.feedScreen(p)
}

// altLeave are the sequences that leave the alternate screen.
var altLeave = [][]byte{[]byte("\x1b[?1049l"), []byte("\x1b[?1047l"), []byte("\x1b[?47l")}

// altLeaveAt is where the first sequence in p that leaves the alternate
// screen starts, and its length; -1 when there is none.
func altLeaveAt(p []byte) (at, n int) {
	at = -1
	if !bytes.Contains(p, []byte("\x1b[?")) {
		return at, 0
	}
	for _, seq := range altLeave {
		if i := bytes.Index(p, seq); i >= 0 && (at < 0 || i < at) {
			at, n = i, len(seq)
		}
	}
	return at, n
}

// shows reports whether rows hold any text.
func shows(rows []string) bool {
	for _, l := range rows {
		if plainTailLine(l) != "" {
			return true
		}
	}
	return false
}

func (r *Reader) feedScreen(p []byte) {
	if len(p) == 0 {
		return
	}
	_, _ = r.scr.Write(p)
	rows, cleared := r.scr.ScrolledOff()
	if cleared {
		r.scrollBase += len(r.scroll)
		r.scroll = r.scroll[:0]
	}
	r.scroll = append(r.scroll, rows...)
	if keep := r.opts.ScrollKeep; len(r.scroll) > 2*keep {
		// The last ScrollKeep rows stay, and every row since the view's
		// start (up to holdKeep of them): see viewStart.
		drop := len(r.scroll) - keep
		if pinned := r.viewFrom - r.scrollBase; pinned < drop {
			drop = max(pinned, len(r.scroll)-holdKeep*keep, 0)
		}
		n := copy(r.scroll, r.scroll[drop:])
		r.scroll = r.scroll[:n]
		r.scrollBase += drop
	}
	r.dirty = true
}

// holdKeep bounds the scrolled-off rows kept since the view's start, in
// ScrollKeeps: past it (a turn that printed that much), the view slides.
const holdKeep = 4

// viewStart is the first row of r.scroll in the parsed view. The view
// starts where it did when the last request was typed (its last ScrollKeep
// rows then) and grows until the next one, rather than sliding with the
// output: a view that slides loses a copy of a block at its top in the same
// parse as a new copy comes in at the bottom, and an agent answering the
// same block again (one that is not moving) would see its answer read as
// no new copy — unrecorded, the request timed out, the agent restarted
// (issue 35). The baselines are taken over this view at each request.
func (r *Reader) viewStart() int {
	lo := max(0, len(r.scroll)-holdKeep*r.opts.ScrollKeep)
	return min(max(r.viewFrom-r.scrollBase, lo), len(r.scroll))
}

// parseView parses scrolled-off rows plus the screen. It returns the
// candidates and the copy count of each content key (and of completeKey).
// Without final, blocks that run to the end of the view and do not parse are
// left out: they may still be drawing.
func (r *Reader) parseView(final bool) ([]candidate, map[string]int) {
	r.view = r.viewLines()
	counts := map[string]int{}
	for _, s := range r.view {
		if l := classify(s); l.kind == kindText && l.text == CompleteMarker {
			counts[completeKey]++
		}
	}
	cands := parseLines(r.view)
	kept := cands[:0]
	for _, c := range cands {
		if c.open && !c.valid() && !final {
			continue
		}
		counts[c.key()]++
		kept = append(kept, c)
	}
	return kept, counts
}

const maxDefers = 3

func (r *Reader) quietScreen(final bool) {
	if !r.dirty && !final {
		return
	}
	// Never read a half-drawn synchronized frame; a program that never ends
	// its frame is read anyway at the third Quiet during that one frame.
	if in, frame := r.scr.InFrame(); in && !final {
		if frame != r.frame {
			r.frame, r.defers = frame, 0
		}
		if r.defers < maxDefers {
			r.defers++
			return
		}
	}
	r.defers = 0
	r.dirty = false
	cands, counts := r.parseView(final)
	order := make([]string, 0, len(cands)+1)
	byKey := make(map[string]*candidate, len(cands))
	if counts[completeKey] > 0 {
		order = append(order, completeKey)
	}
	for i := range cands {
		k := cands[i].key()
		if _, ok := byKey[k]; !ok {
			byKey[k] = &cands[i]
			order = append(order, k)
		}
	}
	r.lookForEcho()
	below, anchored := r.belowLastRequest()
	belowKeys := make(map[string]bool, len(below))
	for i := range below {
		belowKeys[below[i].key()] = true
	}
	unsure := map[string]bool{}
	for _, g := range r.led.observe(order, counts) {
		if g.key == completeKey {
			r.complete(g.n)
			continue
		}
		if c := byKey[g.key]; !c.valid() && !final && !r.unsure[g.key] {
			unsure[g.key] = true // read again at the next Quiet
			r.dirty = true
			r.led.unobserve(g.key, g.n)
			continue
		}
		c := byKey[g.key]
		c.block.Before = anchored && !belowKeys[g.key]
		r.report(c, g.key)
	}
	r.reportAnchored(below)
	r.unsure = unsure
}

// sidebarCols is how wide a right-hand sidebar is: OpenCode (1.18) draws
// one, 42 columns wide, beside its transcript when the terminal is wider
// than 120 columns, its rows ("Context", "120,180 tokens", "LSPs are
// disabled") on the same screen rows as the answer's.
const sidebarCols = 42

// sidebarGap is the least run of spaces between a row's own text and a
// sidebar beside it.
const sidebarGap = 3

// cutSidebar drops what a row shows in the last sidebarCols columns of a
// screen wider than 120 when a run of spaces separates it from the row's
// own text (a block's line never holds such a run; a row with nothing else
// becomes empty), so that a sidebar's text never joins a block's line
// ("CHECKPOINT: T060   LSPs are disabled") nor stands between two of them.
func cutSidebar(row string, cols int) string {
	if cols <= 120 {
		return row
	}
	col, gap := 0, 0
	for i, r := range row {
		if r != ' ' {
			if gap >= sidebarGap && col >= cols-sidebarCols {
				return strings.TrimRight(row[:i], " ")
			}
			gap = 0
		} else {
			gap++
		}
		col++
	}
	return row
}
