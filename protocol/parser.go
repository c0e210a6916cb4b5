package protocol

import (
	"fmt"
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
//     a repeated required key rejects the block, a repeated optional one
//     keeps the first; any other "Key: value" line (see extraKey) goes to
//     Extra, and never rejects it;
//   - a list item belongs to the last list field (Completed, Remaining,
//     Files Modified, Blockers, Subtasks, Files Created, Errors), or joins
//     the last extra value;
//   - a text line right after a list item, Files Modified, Files Created,
//     Notes, Resume, Phase, Current Step or an extra line continues it (a
//     hard wrap); after any other line it ends the block;
//   - one blank line may sit inside a block, two end it, and once every
//     required line is there one ends it (unless a list key still waits for
//     its items); a frame line or a new CHECKPOINT: line ends it.
//
// After a valid block ends, optional lines may still come for it (see hold
// and resume): right after it, or after one blank line, an optional line it
// lacks reopens it (an extra key only right after a pause); one that comes
// after other output or more blank lines is reported as not recorded.
type blockParser struct {
	active bool
	c      candidate
	seen   [numFields]bool
	last   field
	blanks int
	prog   string // the raw Estimated Progress value
	comma  bool   // the Files Modified (or Created) text so far ended with a comma
	// The optional lines kept raw until the block ends (finish).
	createdPH bool              // Files Created: was a placeholder
	subCount  string            // the Subtasks: count as written
	subs      []string          // the Subtasks: checklist items as written
	errs      []string          // the Errors: items as written
	extra     map[string]string // extra lines by key (bounded: setExtra)
	extraKey  string            // the extra key a continuation goes to ("": dropped)
	done      []candidate
	// held: the last block ended at a pause (Reader.Quiet) or at the blank
	// line after its last required line, and the next line may still
	// continue it with optional lines (hold). heldAt: 1 + its index in done
	// while it is there (not yet taken); 0 when taken.
	// passed: it can no longer, but optional lines after it are reported.
	held, passed bool
	heldAt       int
	since        int // lines of other output since the block was passed
	// cut: the next line was cut at maxLine; it had this many bytes.
	cut int
}

func (p *blockParser) start(l line) {
	p.active = true
	p.c = candidate{lines: []string{l.canonical()}}
	p.seen = [numFields]bool{}
	p.seen[fieldTask] = true
	p.c.block.Task = l.value
	p.last = fieldTask
	p.blanks = 0
	p.prog = ""
	p.createdPH, p.subCount, p.subs, p.errs, p.extra, p.extraKey = false, "", nil, nil, nil, ""
}

// has reports whether the block has key line l already.
func (p *blockParser) has(l line) bool {
	if l.field == fieldExtra {
		_, ok := p.extra[l.key]
		return ok
	}
	return p.seen[l.field]
}

// resolve reads a lower-case extra key line as the continuation it more
// likely is, after a line that text continues (see extraKey).
func (p *blockParser) resolve(l line) line {
	if l.kind == kindKey && l.field == fieldExtra && (p.active || p.held) && !l.upperKey() && p.continues() {
		return line{kind: kindText, text: l.text}
	}
	return l
}

// feed takes the next line.
func (p *blockParser) feed(l line) {
	cut := p.cut
	p.cut = 0
	l = p.resolve(l)
	if !p.active && !p.resume(l) {
		if l.kind == kindKey && l.field == fieldTask {
			p.passed = false
			p.start(l)
			p.damaged(cut)
		}
		return
	}
	switch l.kind {
	case kindBlank:
		p.blanks++
		switch {
		case p.blanks >= 2:
			p.end(false, "")
		case p.complete() && !p.awaitsItems():
			p.end(false, "")
			if p.c.valid() {
				p.hold() // an optional line it lacks may still come next
			}
		}
		return
	case kindFrame:
		p.end(false, "block cut off by a frame line")
		return
	case kindKey:
		if l.field == fieldTask {
			p.end(false, "")
			p.start(l)
			p.damaged(cut)
			return
		}
		if l.field == fieldExtra {
			p.last = fieldExtra
			p.setExtra(l.key, l.value)
			break
		}
		if p.seen[l.field] && isOptional(l.field) {
			// The first holds; this one (and its items, its wraps) stays
			// inside the block but not in the record, as a repeated extra key.
			p.last, p.extraKey = fieldExtra, ""
			break
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
		case p.last == fieldExtra:
			p.appendExtra(l.value, "; ")
		case isText(p.last) && p.blanks == 0:
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
	p.damaged(cut)
}

// damaged rejects the block when the line it just took was cut at maxLine
// (n: the bytes the line had): a record never holds a cut line as if whole.
func (p *blockParser) damaged(n int) {
	if n > 0 && p.c.reason == "" {
		p.c.reason = fmt.Sprintf("a line of %d bytes (%s) is longer than the %d KiB read of a line and was cut: not recorded",
			n, strings.TrimSuffix(p.last.String(), ":"), maxLine>>10)
	}
}

// end closes the current block; open means the text ran out before it ended.
func (p *blockParser) end(open bool, reason string) {
	if !p.active {
		return
	}
	p.active = false
	if p.c.reason == "" {
		p.finish()
		p.c.reason = p.validate(reason, open)
	}
	p.c.open = open
	p.done = append(p.done, p.c)
	// What comes next is no part of it; optional lines are reported.
	p.held, p.passed, p.since = false, !open && p.c.valid(), 0
}

// flush ends a block still open at the end of the text.
func (p *blockParser) flush() { p.end(true, "") }

// take returns and forgets the finished candidates.
func (p *blockParser) take() []candidate {
	d := p.done
	p.done, p.heldAt = nil, 0
	return d
}
