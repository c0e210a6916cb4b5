package protocol

import (
	"strconv"
	"strings"
)

// candidate is one CHECKPOINT: block found in text, valid or not.
type candidate struct {
	block  Block
	reason string   // why it was rejected; empty when valid
	lines  []string // its lines in canonical form (line.canonical)
	open   bool     // it ran to the end of the text: it may still be growing
	late   bool     // optional lines that came after a pause reopened it (lines mode)
}

func (c *candidate) valid() bool { return c.reason == "" }

// key identifies the candidate's content: equal for repaints and re-wraps.
func (c *candidate) key() string {
	if c.valid() {
		return c.block.Key()
	}
	return rejectKey(c.reason, c.lines)
}

// text is the candidate as one string, for OnReject.
func (c *candidate) text() string { return strings.Join(c.lines, "\n") }

// blockParser reads classified lines one at a time. Rules:
//   - a block starts at a "CHECKPOINT: <id>" line;
//   - a key line (at any indentation, after any reply marker) sets its field;
//     a repeated key rejects the block;
//   - a list item belongs to the last list field (Completed, Remaining,
//     Files Modified, Blockers);
//   - a text line right after a list item, Files Modified, Notes or Resume
//     continues it (a hard wrap); after any other line it ends the block;
//   - one blank line may sit inside a block, two end it, and once every
//     required line is there one ends it (unless a list key still waits for
//     its items); a frame line or a new CHECKPOINT: line ends it.
type blockParser struct {
	active bool
	c      candidate
	seen   [fieldResume + 1]bool
	last   field
	blanks int
	prog   string // the raw Estimated Progress value
	comma  bool   // the Files Modified text so far ended with a comma
	done   []candidate
	// held: the last block was taken at a pause in the output (Reader.Quiet),
	// and the next line may still continue it with optional lines (hold).
	// passed: it can no longer, but optional lines after it are reported.
	held, passed bool
	since        int // lines since the held block was passed
}

// lateWindow is how many lines after a held block its optional lines are
// still reported as dropped; later ones are just text.
const lateWindow = 10

// hold marks the block just ended at a pause: a Blockers:, Notes: or
// Resume: line it lacks, coming next, reopens it.
func (p *blockParser) hold() { p.held, p.passed = true, false }

// resume handles a line while no block is open: one that continues the held
// block reopens it (true); an optional key line that comes after other
// output is reported as dropped.
func (p *blockParser) resume(l line) bool {
	held := p.held
	p.held = false
	optional := l.kind == kindKey && isOptional(l.field)
	switch {
	case held && optional && !p.seen[l.field] && p.c.valid():
		p.active, p.passed = true, false
		p.c.lines = append([]string(nil), p.c.lines...)
		p.c.late, p.c.open, p.blanks = true, false, 0
		return true
	case held:
		p.passed, p.since = true, 0
	case p.passed && optional:
		p.passed = false
		p.done = append(p.done, candidate{lines: []string{l.canonical()},
			reason: "a " + l.field.String() + " line came after its block was read and after other output: not recorded"})
	case p.passed && l.kind != kindBlank:
		p.since++
		p.passed = p.since < lateWindow
	}
	return false
}

func (p *blockParser) start(l line) {
	p.active = true
	p.c = candidate{lines: []string{l.canonical()}}
	p.seen = [fieldResume + 1]bool{}
	p.seen[fieldTask] = true
	p.c.block.Task = l.value
	p.last = fieldTask
	p.blanks = 0
	p.prog = ""
}

// feed takes the next line.
func (p *blockParser) feed(l line) {
	if !p.active && !p.resume(l) {
		if l.kind == kindKey && l.field == fieldTask {
			p.passed = false
			p.start(l)
		}
		return
	}
	switch l.kind {
	case kindBlank:
		p.blanks++
		if p.blanks >= 2 || p.complete() && !p.awaitsItems() {
			p.end(false, "")
		}
		return
	case kindFrame:
		p.end(false, "block cut off by a frame line")
		return
	case kindKey:
		if l.field == fieldTask {
			p.end(false, "")
			p.start(l)
			return
		}
		if p.seen[l.field] {
			p.c.lines = append(p.c.lines, l.canonical())
			p.c.reason = "duplicate " + l.field.String() + " line"
			p.end(false, "")
			return
		}
		p.seen[l.field] = true
		p.last = l.field
		p.setField(l.field, l.value)
	case kindItem:
		switch {
		case isList(p.last):
			p.appendItem(l.value)
		case (p.last == fieldNotes || p.last == fieldResume) && p.blanks == 0:
			p.appendText(l.text)
		default:
			p.end(false, "")
			return
		}
	case kindText:
		if p.blanks > 0 || !p.continues() {
			p.end(false, "")
			return
		}
		p.appendText(l.text)
	}
	p.blanks = 0
	p.c.lines = append(p.c.lines, l.canonical())
}

// complete reports whether every required line has been seen.
func (p *blockParser) complete() bool {
	for _, f := range required {
		if !p.seen[f] {
			return false
		}
	}
	return true
}

// awaitsItems reports whether the last line was a list key with no items yet
// (Codex puts a blank line between a list key and its items).
func (p *blockParser) awaitsItems() bool {
	l := p.list()
	return l != nil && len(*l) == 0
}

func isList(f field) bool {
	return f == fieldCompleted || f == fieldRemaining || f == fieldFiles || f == fieldBlockers
}

// continues reports whether a text line right now would be a hard-wrapped
// continuation of the last field.
func (p *blockParser) continues() bool {
	b := &p.c.block
	switch p.last {
	case fieldCompleted:
		return len(b.Completed) > 0
	case fieldRemaining:
		return len(b.Remaining) > 0
	case fieldBlockers:
		return len(b.Blockers) > 0
	case fieldFiles:
		return len(b.FilesModified) > 0
	case fieldNotes, fieldResume:
		return true
	}
	return false
}

func (p *blockParser) setField(f field, v string) {
	b := &p.c.block
	switch f {
	case fieldStatus:
		b.Status = v
	case fieldProgress:
		p.prog = v
	case fieldNotes:
		b.Notes = v
	case fieldResume:
		b.Resume = v
	case fieldFiles:
		if isPlaceholder(v) && p.c.reason == "" {
			p.c.reason = "placeholder in Files Modified: " + strconv.Quote(v)
		}
		b.FilesModified = splitFiles(v)
		p.comma = strings.HasSuffix(v, ",")
	default: // Completed, Remaining, Blockers may carry one inline item
		if v != "" && !isNone(v) {
			p.appendItem(v)
		}
	}
}

func (p *blockParser) list() *[]string {
	b := &p.c.block
	switch p.last {
	case fieldCompleted:
		return &b.Completed
	case fieldRemaining:
		return &b.Remaining
	case fieldBlockers:
		return &b.Blockers
	case fieldFiles:
		return &b.FilesModified
	}
	return nil
}

func (p *blockParser) appendItem(v string) {
	l := p.list()
	if p.last == fieldFiles {
		*l = append(*l, splitFiles(v)...)
		return
	}
	if isNone(v) {
		return
	}
	*l = append(*l, v)
}

// appendText joins a hard-wrapped continuation line to the last field.
func (p *blockParser) appendText(t string) {
	b := &p.c.block
	switch p.last {
	case fieldNotes:
		b.Notes = joinSpace(b.Notes, t)
	case fieldResume:
		b.Resume = joinSpace(b.Resume, t)
	case fieldFiles:
		// A path wrapped inside itself ("docs/" + "trails/index.md", as Codex
		// wraps) continues the last path unless the line before ended in a comma.
		more := splitFiles(t)
		if n := len(b.FilesModified); n > 0 && !p.comma && len(more) > 0 && !strings.HasPrefix(t, ",") {
			b.FilesModified[n-1] += more[0]
			more = more[1:]
		}
		b.FilesModified = append(b.FilesModified, more...)
		p.comma = strings.HasSuffix(t, ",")
	default:
		l := p.list()
		(*l)[len(*l)-1] = joinSpace((*l)[len(*l)-1], t)
	}
}

func joinSpace(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

// end closes the current block; open means the text ran out before it ended.
func (p *blockParser) end(open bool, reason string) {
	if !p.active {
		return
	}
	p.active = false
	if p.c.reason == "" {
		p.c.reason = p.validate(reason, open)
	}
	p.c.open = open
	p.done = append(p.done, p.c)
}

// flush ends a block still open at the end of the text.
func (p *blockParser) flush() { p.end(true, "") }

// take returns and forgets the finished candidates.
func (p *blockParser) take() []candidate {
	d := p.done
	p.done = nil
	return d
}
