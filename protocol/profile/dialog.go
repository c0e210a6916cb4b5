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
	// DialogLimit is the CLI's own usage-limit dialog (Codex's "Switch to
	// a cheaper model?", Gemini CLI's "Usage limit reached … Keep trying /
	// Stop"): not a permission dialog, answered with Dialog.Keep.
	DialogLimit = "limit"
)

// Dialog is what a CLI waits on instead of text: a choice a person must make.
type Dialog struct {
	Kind string
	Text string // the dialog as a person reads it, rows joined with newlines
	// Question is what it asks, without its choices and key hints
	// (QuestionOf; question.go).
	Question string
	// Keep (DialogLimit only) answers the dialog with the choice that
	// changes nothing.
	Keep *LimitKeep
	// PersonOnly: a dialog warden never answers — no deny of on_dialog,
	// no warden answer —, only a person at the CLI (warden attach --rw):
	// each of its choices is a decision of the user's, and Esc is one of
	// them (Codex's "Resume paused goal?": Esc leaves the goal paused).
	PersonOnly bool
}

// LimitKeep is how to answer a CLI's usage-limit dialog with the choice
// that changes nothing — keep the current model, keep trying — never the
// one that switches model, plan or spending, or stops the turn.
type LimitKeep struct {
	// Choice is the row it picks, as shown ("2. Keep current model").
	Choice string
	// Keys pick it. Nil when the choice is not where the profile knows it
	// works (Gemini's "Keep trying" not preselected): a person answers.
	Keys []Keys
	// AfterReset: the keys send the refused request again (Gemini's "Keep
	// trying"); type them only once the limit's reset has passed, or they
	// are refused again. Without it they change nothing and send nothing
	// (Codex): type them as soon as the dialog is read.
	AfterReset bool
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
// permission, then question, then other; a dialog that is not a
// permission one is the CLI's usage-limit dialog (DialogLimit, with Keep)
// when the CLI's limit rule recognises it, all of its rows in place.
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
	if kind != DialogPermission && p.tui.limitDialog != nil {
		if keep, top, ok := p.tui.limitDialog(v); ok {
			return Dialog{Kind: DialogLimit, Text: v.textFrom(top), Keep: keep}, true
		}
	}
	text, top := v.dialogText(last)
	if head := v.headAbove(top); head >= 0 {
		text, top = v.textFrom(head), head
	}
	if ask := v.askAbove(p.tui.dialog, top, last); ask >= 0 {
		text = v.textFrom(ask) // the question too, not only the choices under it
	}
	return Dialog{Kind: kind, Text: text, Question: QuestionOf(text), PersonOnly: matchAny(p.tui.personOnly, text)}, true
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
// two blank rows — and down to the end of the screen, box borders removed;
// and its top row.
func (v *view) dialogText(last int) (string, int) {
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
	return v.textFrom(top), top
}

// headAbove is where the tool call above a dialog drawn in a box (whose
// first row inside is top) starts: the row under a dialogHead row among the
// three last rows drawn above the box (Copilot leaves blank rows between),
// that is the command; not the head itself, which counts the seconds the
// call waits ("$ Shell Fetch the page 5s"), and a dialog whose text
// changes every second is a new dialog each time. -1 when none.
func (v *view) headAbove(top int) int {
	if v.r.dialogHead == nil || top < 1 || !strings.HasPrefix(strings.TrimSpace(v.rows[top-1]), "╭") {
		return -1
	}
	seen := 0
	for i := top - 2; i >= 0 && seen < 3 && !v.typed(i); i-- {
		if strings.TrimSpace(v.rows[i]) == "" {
			continue
		}
		if v.r.dialogHead.MatchString(v.rows[i]) {
			if i+1 < top-1 && strings.TrimSpace(v.rows[i+1]) != "" {
				return i + 1
			}
			return -1
		}
		seen++
	}
	return -1
}

// textFrom is the screen from row top down, box borders and blank rows
// removed, at most maxDialogRows rows.
func (v *view) textFrom(top int) string {
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
