package profile

import (
	"regexp"
	"strings"
	"time"
)

// Codex CLI (measured on 0.169.0 run with --no-alt-screen --no-daemon,
// protocol/testdata/cli-codex). Every piece of Codex's wording warden
// relies on is in this file.
//
// The input box is the last "› " row, with a placeholder ("Ask Codex to do
// anything") when empty, the status row and the footer ("? for shortcuts",
// shown only while the box is empty) below. Sent messages stay in the
// transcript as "› text" rows. A turn shows "• Working (0s • esc to
// interrupt)" until the answer streams, then nothing until it ends with
// "Worked for <1s"; errors and interruptions are "■ …" rows. The usage
// limit is "■ You’ve hit your usage limit. … or try again at 8:02 AM."
// followed by a model-switch choice list ("› 1. Switch to …").

const codexPrompt = "›"

var codexChoice = regexp.MustCompile(`^› \d+\. `)

var codexRules = &tuiRules{
	composer: codexComposer,
	echoes: func(rows []string, box span) []span {
		return echoRows(rows, box, func(r string) bool {
			return strings.HasPrefix(r, codexPrompt+" ") && !codexChoice.MatchString(r)
		})
	},
	// Placeholders: the current ones and older versions' example prompts.
	placeholders: []string{"Ask Codex to do anything", "Ask a follow-up question",
		"Explain this codebase", "Summarize recent commits", "Implement {feature}",
		"Find and fix a bug in @filename", "Write tests for @filename",
		"Improve documentation in @filename", "Run /review on my current changes"},
	emptyHints: []string{"? for shortcuts"},
	busy: res(
		`esc to interrupt`,
		`^• Working \(`,
	),
	turnEnd: res(
		`Worked for `,
		`^■ `,
	),
	dialog: concat(
		dialogs(DialogPermission,
			`Would you like to run the following command\?`,
			`Would you like to make the following edits\?`,
			`(?i)allow command\?`,
		),
		dialogs(DialogOther,
			`^› \d+\. `,
			`enter select · esc back`,
			`(?i)press enter to confirm`,
			`Trust this folder`,
			`Hooks need review`,
		),
	),
	waitingTitle: regexp.MustCompile(`Action Required`),
	limits: res(
		`(?i)you['’]ve hit your usage limit`,
		`(?i)quota exceeded\. check your plan`,
	),
}

func codexProfile() *Profile {
	p := tuiDefaults(&Profile{Name: "codex", tui: codexRules, program: []string{"codex", "codex.js"}})
	p.Settle = 300 * time.Millisecond
	// --no-alt-screen: finished lines flow into scrollback, where the
	// reader finds them. --no-daemon: otherwise an app-server daemon is
	// re-parented to init and outlives the process group.
	p.flags = []string{"--no-alt-screen", "--no-daemon"}
	// One Ctrl-C at the idle prompt exits; a second one is never sent.
	p.quit = []Keys{{Bytes: []byte{0x03}}}
	return p
}

// codexComposer finds the last "› " row, unless it is a choice list.
func codexComposer(rows []string) (span, string, bool) {
	for i := len(rows) - 1; i >= 0; i-- {
		if !strings.HasPrefix(rows[i], codexPrompt) {
			continue
		}
		if codexChoice.MatchString(rows[i]) {
			return noSpan, "", false
		}
		j := continuation(rows, i, len(rows))
		lines := []string{strings.TrimSpace(strings.TrimPrefix(rows[i], codexPrompt))}
		for k := i + 1; k <= j; k++ {
			lines = append(lines, strings.TrimSpace(rows[k]))
		}
		return span{i, j}, strings.TrimSpace(strings.Join(lines, "\n")), true
	}
	return noSpan, "", false
}
