package profile

import (
	"regexp"
	"strings"
)

// Kinds of dialog an agent waits on.
const (
	DialogPermission = "permission" // approve a command, an edit, a tool
	DialogQuestion   = "question"   // the agent asks the user something
	DialogOther      = "other"      // a trust or login prompt, a mode choice, a choice list
)

// Dialog is what a CLI waits on instead of text: a choice a person must make.
type Dialog struct {
	Kind string
	Text string // the dialog as a person reads it, rows joined with newlines
}

// dialogRule recognises a dialog by one of its rows.
type dialogRule struct {
	re   *regexp.Regexp
	kind string
}

// dialogs builds rules of one kind.
func dialogs(kind string, exprs ...string) []dialogRule {
	out := make([]dialogRule, len(exprs))
	for i, re := range res(exprs...) {
		out[i] = dialogRule{re: re, kind: kind}
	}
	return out
}

// maxDialogRows caps the text of a dialog.
const maxDialogRows = 16

// Dialog reports whether the CLI shows a dialog that waits for a person's
// choice, and what it says. Plain programs never do (as far as warden can
// tell from lines). The most specific kind among the rows that match wins:
// permission, then question, then other.
func (p *Profile) Dialog(s Screen) (Dialog, bool) {
	if p.tui == nil {
		return Dialog{}, false
	}
	v := p.tui.view(s.Rows())
	last, kind := -1, ""
	for _, i := range v.own() {
		for _, r := range p.tui.dialog {
			if r.re.MatchString(v.rows[i]) {
				last = i
				if rank(r.kind) > rank(kind) {
					kind = r.kind
				}
			}
		}
	}
	if last < 0 {
		return Dialog{}, false
	}
	return Dialog{Kind: kind, Text: v.dialogText(last)}, true
}

func rank(kind string) int {
	switch kind {
	case DialogPermission:
		return 3
	case DialogQuestion:
		return 2
	case DialogOther:
		return 1
	}
	return 0
}

// dialogText is the dialog around row last (its bottom-most matching row):
// up to the separator above it — a full-width ─ rule, the top of a box, or
// two blank rows — and down to the end of the screen, box borders removed.
func (v *view) dialogText(last int) string {
	top, blanks := last, 0
	for i := last - 1; i >= 0 && v.box.from != i && !v.typed(i); i-- {
		t := strings.TrimSpace(v.rows[i])
		if lineOf(t, '─') || strings.HasPrefix(t, "╭") {
			break
		}
		if t == "" {
			if blanks++; blanks == 2 {
				break
			}
			continue
		}
		blanks, top = 0, i
	}
	var lines []string
	for i := top; i < len(v.rows) && len(lines) < maxDialogRows; i++ {
		if t := unboxAll(v.rows[i]); t != "" {
			lines = append(lines, t)
		}
	}
	return strings.Join(lines, "\n")
}

// WaitingTitle reports whether a window title the CLI set says it waits for
// the user ("Action Required").
func (p *Profile) WaitingTitle(title string) bool {
	return p.tui != nil && p.tui.waitingTitle != nil && p.tui.waitingTitle.MatchString(title)
}

// Deny returns the keys that answer a dialog No, or cancel it — never Yes.
func (p *Profile) Deny() []Keys {
	if p.tui == nil {
		return nil
	}
	return []Keys{{Bytes: []byte{0x1b}}} // Esc: denies or cancels in all three CLIs
}

func concat(lists ...[]dialogRule) []dialogRule {
	var out []dialogRule
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// unboxAll removes every level of box borders around a row.
func unboxAll(row string) string {
	for {
		t := unbox(row)
		if t == row {
			return t
		}
		row = t
	}
}
