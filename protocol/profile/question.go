package profile

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
)

// choiceRows are a dialog's rows a person picks from or is told keys by,
// in every CLI's wording: numbered choices (the selected one marked ›, ❯
// or ●), Claude Code's bare No / Yes, OpenCode's row of buttons, and the
// hints under them. A dialog's question is what is left.
var choiceRows = slices.Concat(res(
	`^[\x{2800}-\x{28FF}]`, // a spinner's row
), pickRows, res(
	`(?i)esc to cancel`,
	`(?i)enter to confirm`,
	`(?i)press enter`,
	`⇆ select`,
	`(?i)waiting for user confirmation`,
	`^Tip: `,
))

// pickRows are the rows a person picks from: numbered choices, Claude
// Code's bare No / Yes, OpenCode's row of buttons.
var pickRows = res(
	`^(?:[›❯●▸>]\s*)?\d+\.\s`,
	`^(?:[›❯●▸>]\s*)?(?:Yes|No)$`,
	`Allow once\s+Allow always\s+Reject`,
)

// HasChoices reports whether a dialog's text lists anything to pick: Qwen
// Code draws its confirmation's question a moment before its choices.
func HasChoices(text string) bool {
	for _, row := range strings.Split(text, "\n") {
		if matchAny(pickRows, bareRow(row)) {
			return true
		}
	}
	return false
}

// sidebarMark is the bar OpenCode draws left of its rows.
var sidebarMark = regexp.MustCompile(`^[┃│]\s?`)

// cursorTail is a block cursor a CLI draws at a row's end and takes away
// (Qwen Code's "← █" under its confirmation): not the dialog's words.
var cursorTail = regexp.MustCompile(`[\s\x{2580}-\x{259F}]+$`)

// bareRow is a dialog's row without OpenCode's sidebar bar, a trailing
// block cursor and the spaces around them.
func bareRow(row string) string {
	row = sidebarMark.ReplaceAllString(strings.TrimSpace(row), "")
	return strings.TrimSpace(cursorTail.ReplaceAllString(row, ""))
}

// QuestionOf is what a dialog's text asks, without its choices and key
// hints: "Do you want to proceed?" and the command, never "› 1. Yes,
// proceed (y)". Empty when the text is only choices.
//
// Gemini CLI and Qwen Code head their confirmation with the tool's row
// ("? Shell curl …"): what is above it (the user's message, when the CLI
// draws no rule between) is not the question.
func QuestionOf(text string) string {
	if q, ok := knownQuestion(text); ok {
		return q
	}
	var out []string
	for _, row := range strings.Split(text, "\n") {
		row = bareRow(row)
		if row == "" || matchAny(choiceRows, row) {
			continue
		}
		if strings.HasPrefix(row, "? ") {
			out = out[:0]
		}
		out = append(out, row)
	}
	return strings.Join(out, "\n")
}

// DialogID names a dialog by its text (Dialog.Text, as warden reports it
// in agent_waiting and warden ps): an answer carries the id of the dialog
// the person saw, and warden refuses it for any other. It is made of the
// question and the choices' words: the selection's mark (›, ❯, ●), a
// spinner's frame and the key hints are not part of it — moving the
// selection, or a hint that counts the seconds, is the same dialog.
func DialogID(text string) string {
	var b strings.Builder
	b.WriteString(QuestionOf(text))
	b.WriteString("\n--\n")
	for _, row := range strings.Split(text, "\n") {
		row = bareRow(row)
		if m := optionRow.FindStringSubmatch(row); m != nil {
			b.WriteString(m[2])
			b.WriteByte('\n')
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:5])
}

// askAbove is the row that asks (a permission or question rule's), when
// it is above the dialog's text (whose top is top) and close to its bottom
// row last: Codex draws its choices in its composer's place, under the
// question. -1 when the text holds it.
func (v *view) askAbove(rules []dialogRule, top, last int) int {
	for i := last; i >= 0 && i > last-maxDialogRows; i-- {
		for _, r := range rules {
			if rank(r.kind) >= rank(DialogQuestion) && r.re.MatchString(v.rows[i]) {
				if i < top {
					return i
				}
				return -1
			}
		}
	}
	return -1
}

func matchAny(list []*regexp.Regexp, s string) bool {
	for _, re := range list {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// knownDialog is a dialog whose question a profile words itself, its
// choices and their keys included, because its own rows do not say them
// in a line (Claude Code's auto-mode offer: a title, five paragraphs and a
// row of key hints). A CLI's file adds its own (init).
type knownDialog struct {
	re       *regexp.Regexp // a row (or a hook's message) only this dialog shows
	question string
}

var knownDialogs []knownDialog

// knownQuestion is the question of the known dialog text is, if any.
func knownQuestion(text string) (string, bool) {
	for _, row := range strings.Split(text, "\n") {
		for _, k := range knownDialogs {
			if k.re.MatchString(row) {
				return k.question, true
			}
		}
	}
	return "", false
}
