package protocol

import "strings"

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
	// held: the last block was taken at a pause in the output (Reader.Quiet),
	// and the next line may still continue it with optional lines (hold).
	// passed: it can no longer, but optional lines after it are reported.
	held, passed bool
	since        int // lines since the held block was passed
}

// lateWindow is how many lines after a held block its optional lines are
// still reported as dropped; later ones are just text.
const lateWindow = 10

// hold marks the block just ended at a pause: an optional line it lacks
// (Blockers:, Notes:, Resume:, a seed line or an extra key), coming next,
// reopens it.
func (p *blockParser) hold() { p.held, p.passed = true, false }

// resume handles a line while no block is open: one that continues the held
// block reopens it (true); an optional key line that comes after other
// output is reported as dropped.
func (p *blockParser) resume(l line) bool {
	held := p.held
	p.held = false
	optional := l.kind == kindKey && isOptional(l.field)
	switch {
	case held && optional && !p.has(l) && p.c.valid():
		p.active, p.passed = true, false
		p.c.lines = append([]string(nil), p.c.lines...)
		p.c.late, p.c.open, p.blanks = true, false, 0
		return true
	case held:
		p.passed, p.since = true, 0
	case p.passed && optional && l.field != fieldExtra:
		// An extra line this late is more likely prose than a lost line.
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
	l = p.resolve(l)
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
}

// flush ends a block still open at the end of the text.
func (p *blockParser) flush() { p.end(true, "") }

// take returns and forgets the finished candidates.
func (p *blockParser) take() []candidate {
	d := p.done
	p.done = nil
	return d
}
