package profile

import (
	"regexp"
	"strings"
	"time"
)

// Gemini CLI (measured on 0.61.0, protocol/testdata/cli-gemini). Every piece
// of Gemini's wording warden relies on is in this file.
//
// The input box is a " > " row framed by a row of ▄ above and ▀ below, with
// "Type your message or @path/to/file" when empty; sent messages stay in the
// transcript in the same frames, followed by the answer ("✦ …"). A turn
// shows a braille spinner row "⠸ Thinking... (esc to cancel, 0s)". The usage
// limit is a rounded box "Usage limit reached for MODEL." (with "Access
// resets at 8:03 AM UTC." when the API gives a delay) and a "1. Keep trying
// / 2. Stop" choice, drawn in place of the input box.

var geminiInput = regexp.MustCompile(`^ ?> `)

var geminiRules = &tuiRules{
	composer:     geminiComposer,
	echoes:       geminiEchoes,
	placeholders: []string{"Type your message or @path/to/file"},
	busy: res(
		`esc to cancel`,
		`^\s*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] `,
	),
	dialog: concat(
		dialogs(DialogPermission,
			`Allow execution`,
			`Apply this change\?`,
			`Do you want to proceed`,
		),
		dialogs(DialogOther,
			`● \d+\. `,
			`Waiting for user confirmation`,
		),
	),
	waitingTitle: regexp.MustCompile(`Action Required`),
	limits: res(
		`(?i)usage limit reached for `,
		`(?i)you have reached your daily .*quota`,
	),
}

func geminiProfile() *Profile {
	p := tuiDefaults(&Profile{Name: "gemini", tui: geminiRules, program: []string{"gemini"}})
	p.Settle = 500 * time.Millisecond
	p.quit = []Keys{{Bytes: []byte("/quit")}, {Bytes: []byte("\r"), Pause: 700 * time.Millisecond}}
	return p
}

// geminiBoxes returns every ▄…▀ frame holding a " > " row.
func geminiBoxes(rows []string) []span {
	var out []span
	for i := 0; i+1 < len(rows); i++ {
		if !lineOf(rows[i], '▄') || !geminiInput.MatchString(rows[i+1]) {
			continue
		}
		for j := i + 2; j < len(rows); j++ {
			if lineOf(rows[j], '▀') {
				out = append(out, span{i, j})
				i = j
				break
			}
		}
	}
	return out
}

// geminiComposer is the last frame, unless the CLI drew its own output
// (an answer, a spinner, a dialog box) below it: then that frame is an echo
// and the input box is hidden.
func geminiComposer(rows []string) (span, string, bool) {
	boxes := geminiBoxes(rows)
	if len(boxes) == 0 {
		return noSpan, "", false
	}
	b := boxes[len(boxes)-1]
	for _, r := range rows[b.to+1:] {
		t := strings.TrimSpace(r)
		if strings.HasPrefix(t, "✦") || strings.HasPrefix(t, "╭") || strings.HasPrefix(t, "│") {
			return noSpan, "", false
		}
	}
	var lines []string
	for k := b.from + 1; k < b.to; k++ {
		lines = append(lines, strings.TrimSpace(geminiInput.ReplaceAllString(rows[k], "")))
	}
	return b, strings.TrimSpace(strings.Join(lines, "\n")), true
}

func geminiEchoes(rows []string, box span) []span {
	var out []span
	for _, b := range geminiBoxes(rows) {
		if b != box {
			out = append(out, b)
		}
	}
	return out
}
