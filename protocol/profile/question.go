package profile

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// choiceRows are a dialog's rows a person picks from or is told keys by,
// in every CLI's wording: numbered choices (the selected one marked ›, ❯
// or ●), Claude Code's bare No / Yes, OpenCode's row of buttons, and the
// hints under them. A dialog's question is what is left.
var choiceRows = res(
	`^(?:[›❯●▸>]\s*)?\d+\.\s`,
	`^(?:[›❯●▸>]\s*)?(?:Yes|No)$`,
	`Allow once\s+Allow always\s+Reject`,
	`(?i)esc to cancel`,
	`(?i)enter to confirm`,
	`(?i)press enter`,
	`⇆ select`,
	`(?i)waiting for user confirmation`,
	`^Tip: `,
)

// sidebarMark is the bar OpenCode draws left of its rows.
var sidebarMark = regexp.MustCompile(`^[┃│]\s?`)

// QuestionOf is what a dialog's text asks, without its choices and key
// hints: "Do you want to proceed?" and the command, never "› 1. Yes,
// proceed (y)". Empty when the text is only choices.
func QuestionOf(text string) string {
	var out []string
	for _, row := range strings.Split(text, "\n") {
		row = strings.TrimSpace(sidebarMark.ReplaceAllString(strings.TrimSpace(row), ""))
		if row == "" || matchAny(choiceRows, row) {
			continue
		}
		out = append(out, row)
	}
	return strings.Join(out, "\n")
}

// DialogID names a dialog by its text (Dialog.Text, as warden reports it
// in agent_waiting and warden ps): an answer carries the id of the dialog
// the person saw, and warden refuses it for any other.
// The selection's mark (›, ❯, ●) is not part of it: moving the selection
// is the same dialog.
func DialogID(text string) string {
	var b strings.Builder
	for _, row := range strings.Split(text, "\n") {
		b.WriteString(strings.TrimSpace(selectMark.ReplaceAllString(strings.TrimSpace(row), "")))
		b.WriteByte('\n')
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:5])
}

// selectMark marks a dialog's selected choice.
var selectMark = regexp.MustCompile(`^[›❯●▸]\s*`)

// question is the question of the dialog whose text is text and whose
// bottom-most matching row is last: the text's own, or — when the row that
// asks is above the text (Codex draws its choices in its composer's place,
// under the question) — the rows from that one down.
func (v *view) question(rules []dialogRule, last int, text string) string {
	for i := last; i >= 0 && i > last-2*maxDialogRows; i-- {
		row := v.rows[i]
		asks := false
		for _, r := range rules {
			asks = asks || (rank(r.kind) >= rank(DialogQuestion) && r.re.MatchString(row))
		}
		if !asks {
			continue
		}
		if t := strings.TrimSpace(unboxAll(row)); t != "" && !strings.Contains(text, t) {
			var rows []string
			for j := i; j <= last && j < len(v.rows); j++ {
				rows = append(rows, unboxAll(v.rows[j]))
			}
			return QuestionOf(strings.Join(rows, "\n"))
		}
		break
	}
	return QuestionOf(text)
}

func matchAny(list []*regexp.Regexp, s string) bool {
	for _, re := range list {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}
