package protocol

import (
	"strconv"
	"strings"
)

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
	if p.last == fieldExtra {
		v, ok := p.extra[p.extraKey]
		return ok && v == ""
	}
	if p.last == fieldSubtasks && p.subCount != "" {
		return false
	}
	l := p.list()
	return l != nil && len(*l) == 0
}

// isList reports whether f is a field whose items are list items.
func isList(f field) bool {
	switch f {
	case fieldCompleted, fieldRemaining, fieldFiles, fieldBlockers, fieldSubtasks, fieldCreated, fieldErrors:
		return true
	}
	return false
}

// isText reports whether f is a one-paragraph field, which a hard-wrapped
// line (or a list item in it) continues.
func isText(f field) bool {
	return f == fieldNotes || f == fieldResume || f == fieldPhase || f == fieldStep
}

// continues reports whether a text line right now would be a hard-wrapped
// continuation of the last field.
func (p *blockParser) continues() bool {
	if isText(p.last) || p.last == fieldExtra {
		return true
	}
	l := p.list()
	return l != nil && len(*l) > 0
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
	case fieldPhase:
		b.Phase = v
	case fieldStep:
		b.CurrentStep = v
	case fieldSubtasks:
		p.setSubtasks(v)
	case fieldFiles:
		if isPlaceholder(v) && p.c.reason == "" {
			p.c.reason = "placeholder in Files Modified: " + strconv.Quote(v)
		}
		b.FilesModified = splitFiles(v)
		p.comma = strings.HasSuffix(v, ",")
	case fieldCreated:
		p.createdPH = isPlaceholder(v)
		b.FilesCreated = splitFiles(v)
		p.comma = strings.HasSuffix(v, ",")
	default: // Completed, Remaining, Blockers, Errors may carry one inline item
		if v != "" && !isNone(v) {
			p.appendItem(v)
		}
	}
}

// list is the list the last field fills (nil when it is no list).
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
	case fieldCreated:
		return &b.FilesCreated
	case fieldSubtasks:
		return &p.subs
	case fieldErrors:
		return &p.errs
	}
	return nil
}

func (p *blockParser) appendItem(v string) {
	l := p.list()
	if p.last == fieldFiles || p.last == fieldCreated {
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
	case fieldPhase:
		b.Phase = joinSpace(b.Phase, t)
	case fieldStep:
		b.CurrentStep = joinSpace(b.CurrentStep, t)
	case fieldExtra:
		p.appendExtra(t, " ")
	case fieldFiles, fieldCreated:
		// A path wrapped inside itself ("docs/" + "trails/index.md", as Codex
		// wraps) continues the last path unless the line before ended in a comma.
		l := p.list()
		more := splitFiles(t)
		if n := len(*l); n > 0 && !p.comma && len(more) > 0 && !strings.HasPrefix(t, ",") {
			(*l)[n-1] += more[0]
			more = more[1:]
		}
		*l = append(*l, more...)
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
	if i := strings.LastIndexByte(a, ' '); hyphenBreak(a[i+1:]) {
		return a + b // a word the CLI wrapped after its hyphen (OpenCode)
	}
	return a + " " + b
}
