package protocol

import (
	"regexp"
	"strconv"
	"strings"
)

// The seeds' optional lines (DESIGN §4): Phase:, Current Step: (text, hard
// wraps joined as in Notes:), Subtasks: (a count or a checklist), Files
// Created: (as Files Modified:) and Errors: (a list). A placeholder in any
// optional line ("Phase: <phase>", "Subtasks: [N]/[M]", an item "<error>")
// never becomes a value: that value is dropped and the block is read
// without it. Only a required line missing or invalid rejects a block.

// checkbox reads a checklist item's box: "[x] text" (done; also "[X]",
// "[✓]", "[✔]") or "[ ] text".
func checkbox(s string) (text string, done, ok bool) {
	for _, b := range []struct {
		box  string
		done bool
	}{{"[x] ", true}, {"[X] ", true}, {"[ ] ", false}, {"[✓] ", true}, {"[✔] ", true}} {
		if rest, found := strings.CutPrefix(s, b.box); found {
			return strings.TrimSpace(rest), b.done, true
		}
	}
	return "", false, false
}

var (
	countRe = regexp.MustCompile(`^(\d{1,6})\s*(?:/|of)\s*(\d{1,6})(?:\s+(?:done|complete|completed))?\.?$`)
	// the start of a count, a TUI's half-drawn "Subtasks: 19/29" read at a pause
	partCountRe = regexp.MustCompile(`^\d+(?:\s*(?:/|o|of)\s*\d*)?$`)
	// a half-drawn checklist box, or a box without text
	partBoxRe = regexp.MustCompile(`^\[[ xX✓✔]?\]?$`)
	// a count of placeholders: "N/M", "X of Y", "[done]/[total]", "<n>/<m>"
	countPlaceholderRe = regexp.MustCompile(`^(?:[A-Z]|\[[^\]]*\]|<[^>]*>)\s*(?:/|of)\s*(?:[A-Z]|\[[^\]]*\]|<[^>]*>)$`)
)

// parseCount reads a Subtasks count, "19/29" or "19 of 29" (optionally
// followed by "done"), with done ≤ total.
func parseCount(v string) (done, total int, ok bool) {
	m := countRe.FindStringSubmatch(strings.TrimSpace(strings.ToLower(v)))
	if m == nil {
		return 0, 0, false
	}
	done, _ = strconv.Atoi(m[1])
	total, _ = strconv.Atoi(m[2])
	return done, total, done <= total
}

func isCountPlaceholder(v string) bool {
	v = strings.TrimSpace(v)
	return isPlaceholder(v) || countPlaceholderRe.MatchString(v)
}

// setSubtasks reads the value of a Subtasks: line: a count, an inline
// checklist item, or nothing (the items follow). Numbers that are no count
// yet ("19", "19/2": a count drawn in part, or none) are dropped. Any other
// value is not a count warden can use: it is kept as written in
// Extra["Subtasks"], and the line's continuations with it.
func (p *blockParser) setSubtasks(v string) {
	_, _, count := parseCount(v)
	switch {
	case v == "" || isNone(v) || isCountPlaceholder(v) || !count && partCountRe.MatchString(v):
	case strings.HasPrefix(v, "["):
		if _, _, ok := checkbox(v); ok {
			p.subs = append(p.subs, v)
		} else {
			p.asExtra("Subtasks", v)
		}
	case count:
		p.subCount = v
	default:
		p.asExtra("Subtasks", v)
	}
}

// asExtra makes the line just read an extra line of key k.
func (p *blockParser) asExtra(k, v string) {
	p.setExtra(k, v)
	p.last = fieldExtra
}

// subtasks is the record's Subtasks: the count as written, else counted
// from the checklist; nil when there is neither.
func (p *blockParser) subtasks() *Subtasks {
	var items []Subtask
	done := 0
	for _, it := range p.subs {
		if isPlaceholder(it) || partBoxRe.MatchString(it) {
			continue
		}
		text, d, ok := checkbox(it + " ")
		if !ok {
			text = it
		}
		text = strings.TrimSpace(text)
		if text == "" || isPlaceholder(text) {
			continue
		}
		items = append(items, Subtask{Text: text, Done: d})
		if d {
			done++
		}
	}
	if d, t, ok := parseCount(p.subCount); ok {
		return &Subtasks{Done: d, Total: t, Items: items}
	}
	if len(items) == 0 {
		return nil
	}
	return &Subtasks{Done: done, Total: len(items), Items: items}
}

// locationRe is a leading location of an error item: a path, then up to two
// ":number", then ":" and a space or the end ("a.go:12: …", "a.go:12:3: …",
// "path/x.go: …").
var locationRe = regexp.MustCompile(`^([A-Za-z0-9_.~/+@-]*[A-Za-z][A-Za-z0-9_.~/+@-]*)((?::\d+){0,2}):(?:\s+|$)`)

// errorItem splits an Errors: item into its location and message. Without
// a line number the path must look like a file (a '/' or an extension), so
// that "TestX: fails" or "build: broken" stay messages.
func errorItem(s string) ErrorItem {
	m := locationRe.FindStringSubmatch(s)
	if m == nil {
		return ErrorItem{Message: s}
	}
	path := m[1]
	if m[2] == "" {
		dot := strings.LastIndexByte(path, '.')
		ext := dot > 0 && dot < len(path)-1 && isASCIILetter(path[dot+1])
		if !strings.Contains(path, "/") && !ext || strings.HasSuffix(path, "/") {
			return ErrorItem{Message: s}
		}
	}
	return ErrorItem{Where: path + m[2], Message: strings.TrimSpace(s[len(m[0]):])}
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// errorItems is the record's Errors, placeholders dropped.
func (p *blockParser) errorItems() []ErrorItem {
	var out []ErrorItem
	for _, it := range p.errs {
		if it == "" || isPlaceholder(it) {
			continue
		}
		out = append(out, errorItem(it))
	}
	return out
}

// finish sets the block's optional fields from what was read, each
// placeholder dropped. It never changes what the parser holds (a copy of
// the parser peeks at an open block, and a held block may be reopened):
// lists are built anew.
func (p *blockParser) finish() {
	b := &p.c.block
	b.Blockers = dropPlaceholders(b.Blockers)
	b.FilesCreated = dropPlaceholders(b.FilesCreated)
	if p.createdPH {
		b.FilesCreated = nil
	}
	for _, s := range []*string{&b.Notes, &b.Resume, &b.Phase, &b.CurrentStep} {
		if isPlaceholder(*s) {
			*s = ""
		}
	}
	b.Subtasks = p.subtasks()
	b.Errors = p.errorItems()
	b.Extra = p.extras()
}

// dropPlaceholders returns items without the placeholders (items itself
// when it has none).
func dropPlaceholders(items []string) []string {
	for i, it := range items {
		if isPlaceholder(it) {
			out := append([]string(nil), items[:i]...)
			for _, it := range items[i+1:] {
				if !isPlaceholder(it) {
					out = append(out, it)
				}
			}
			return out
		}
	}
	return items
}
