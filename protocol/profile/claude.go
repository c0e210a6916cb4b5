package profile

import (
	"strings"
	"time"
)

// Claude Code (measured on 2.1.197, protocol/testdata/cli-claude). Every
// piece of Claude's wording warden relies on is in this file.
//
// The input box is a "❯ " row between two full-width "────" rules, with the
// footer ("? for shortcuts · ← for agents", "● high · /effort") below it.
// The user's own messages stay in the transcript as "❯ text" rows (without
// the rules), continued on rows indented by two spaces. While a turn runs
// the footer says "esc to interrupt" and a spinner row reads
// "✢ Cerebrating… (0s · ↓ 2 tokens)"; a finished turn leaves
// "✻ Cooked for 0s". The usage limit is an error in the transcript.

const claudePrompt = "❯"

var claudeRules = &tuiRules{
	composer: claudeComposer,
	echoes: func(rows []string, box span) []span {
		return echoRows(rows, box, func(r string) bool { return strings.HasPrefix(r, claudePrompt+" ") })
	},
	emptyHints: []string{"? for shortcuts"},
	busy: res(
		`esc to interrupt`,
		`ctrl\+c to interrupt`,
		`^[·✢✳✶✻✽*]\s+\S+…`, // spinner: a gerund with an ellipsis
	),
	dialog: concat(
		dialogs(DialogPermission,
			`Do you want to proceed\?`,
			`Do you want to (make this edit|create|allow|run)`,
			`needs your approval`,
		),
		dialogs(DialogOther,
			`^\s*❯ \d+\. `, // a choice list
			`^\s*❯ (No|Yes)$`,
			`Do you want to `,
			`Yes, I trust this folder`,
			`(?i)enter to confirm`,
			`Enter to stay in auto mode`,
			`Esc to cancel · Tab to amend`,
		),
	),
	limits: res(
		`(?i)you['’]ve (?:hit|reached) your\b[^.]*\blimit`, // "You've hit your limit · resets 3pm (Europe/Berlin)", "… session limit", "… weekly limit"
		`(?i)you['’]re out of (?:extra )?usage`,            // "You're out of extra usage · resets 9pm"
		`(?i)\b\d+-hour limit reached`,                     // "5-hour limit reached ∙ resets 1am"
		`(?i)claude (?:ai )?usage limit reached`,           // "Claude usage limit reached. Your limit will reset at 3pm"
		`API Error: .*\(429\)`,                             // API key: "Request rejected (429) · … rate limit. Please try again later."
	),
}

func claudeProfile() *Profile {
	p := tuiDefaults(&Profile{Name: "claude", tui: claudeRules, program: []string{"claude", "claude.exe"}})
	p.Settle = 300 * time.Millisecond
	p.quit = []Keys{{Bytes: []byte("/exit")}, {Bytes: []byte("\r"), Pause: 700 * time.Millisecond}}
	return p
}

// claudeComposer finds the last "❯" row that sits right under a rule row
// and above another one.
func claudeComposer(rows []string) (span, string, bool) {
	for i := len(rows) - 1; i > 0; i-- {
		if !strings.HasPrefix(rows[i], claudePrompt) || !lineOf(rows[i-1], '─') {
			continue
		}
		for j := i + 1; j < len(rows); j++ {
			if lineOf(rows[j], '─') {
				lines := []string{strings.TrimSpace(strings.TrimPrefix(rows[i], claudePrompt))}
				for k := i + 1; k < j; k++ {
					lines = append(lines, strings.TrimSpace(rows[k]))
				}
				return span{i - 1, j}, strings.TrimSpace(strings.Join(lines, "\n")), true
			}
		}
		return noSpan, "", false
	}
	return noSpan, "", false
}

// echoRows returns each row that starts a user echo, with its indented
// continuation, outside the composer.
func echoRows(rows []string, box span, starts func(string) bool) []span {
	var out []span
	for i := 0; i < len(rows); i++ {
		if box.has(i) || !starts(rows[i]) {
			continue
		}
		limit := len(rows)
		if box.from > i {
			limit = box.from
		}
		j := continuation(rows, i, limit)
		out = append(out, span{i, j})
		i = j
	}
	return out
}
