package protocol

// Optional lines that come after their block ended: those that may still
// belong to it reopen it (hold, resume, reopen); those that can no longer
// are reported as not recorded.

// lateWindow is how many lines of other output after a block its optional
// lines are still reported as dropped; later ones are just text.
const lateWindow = 10

// hold marks the block just ended (at a pause, or at a blank line once
// complete): an optional line it lacks (Blockers:, Notes:, Resume:, a seed
// line or an extra key), coming next, reopens it.
func (p *blockParser) hold() { p.held, p.passed, p.heldAt = true, false, len(p.done) }

// interrupt tells the parser that something other than the agent's output
// came between (warden typed): a held block can no longer be continued, and
// counts that as other output.
func (p *blockParser) interrupt() {
	if p.held {
		p.held, p.passed, p.since = false, true, 0
	}
	if p.passed {
		p.since++
		p.passed = p.since < lateWindow
	}
}

// late reports whether l is an optional line the ended block lacks, which
// may still belong to it: an extra key only right after a pause (after a
// blank line one is more likely prose).
func (p *blockParser) late(l line) bool {
	return l.kind == kindKey && isOptional(l.field) && !p.has(l) && p.c.valid() &&
		(l.field != fieldExtra || p.blanks == 0)
}

// resume handles a line while no block is open: one that continues the held
// block reopens it (true); an optional key line that comes after other
// output, after blank lines, or that the block has already, is reported as
// dropped.
func (p *blockParser) resume(l line) bool {
	if p.held {
		switch {
		case p.late(l):
			p.reopen()
			return true
		case l.kind == kindBlank && p.blanks == 0: // one blank line may sit inside a block
			p.blanks++
			return false
		}
		p.held, p.passed, p.since = false, true, 0
	}
	if !p.passed {
		return false
	}
	switch {
	case l.kind == kindBlank:
		p.blanks++
	case l.kind == kindKey && isOptional(l.field) && l.field != fieldExtra:
		// An extra line this late is more likely prose than a lost line.
		p.passed = false
		p.done = append(p.done, candidate{lines: []string{l.canonical()},
			reason: "a " + l.field.String() + " line came after its block was read and " + p.why(l) + ": not recorded"})
	default:
		p.since++
		p.passed = p.since < lateWindow
	}
	return false
}

// why says what stands between a passed block and its late line l.
func (p *blockParser) why(l line) string {
	switch {
	case p.since > 0:
		return "after other output"
	case p.blanks > 1:
		return "after blank lines"
	case p.has(l):
		return "the block has one already"
	}
	return "after other output"
}

// reopen continues the held block. When it has not been taken yet (all of
// the text is read at once: a screen, a hook's text) it is still one block;
// otherwise it was reported, and its continuation is late (an amendment).
func (p *blockParser) reopen() {
	p.held, p.passed, p.active = false, false, true
	p.c.lines = append([]string(nil), p.c.lines...)
	p.c.late, p.c.open, p.blanks = true, false, 0
	if p.heldAt > 0 && p.heldAt == len(p.done) {
		p.done = p.done[:p.heldAt-1]
		p.c.late = false
	}
	p.heldAt = 0
}
