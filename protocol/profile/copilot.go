package profile

import (
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// GitHub Copilot CLI (measured on 1.0.102, protocol/testdata/cli-copilot),
// a TUI on the alternate screen, run offline in its BYOK mode
// (COPILOT_PROVIDER_BASE_URL: no GitHub login). Every piece of Copilot's
// wording warden relies on is in this file.
//
// The input box is a "❯" row at the left edge between two full-width
// "────" rules, empty when idle (no placeholder), with the project dir
// above it and below it the footer "← open sidebar · Interactive · Manual
// Approval · / commands · ? help · tab next tab   MODEL". Sent messages
// stay in the transcript as " ❯ text" rows (the time they were sent at the
// right edge of the first), continued on rows indented by three; answers
// are " ● …" rows, tool calls " $ Shell DESCRIPTION" (from 5 s on, the
// seconds it has waited after it) with the command under it. A turn shows
// the footer "◎ Working · 48 B esc esc interrupt" (the glyph turns; "esc
// again to interrupt" after one Esc). A command that fetches a URL asks in
// a box drawn in place of the input box: "Copilot is attempting to access
// the following URL:", the URL, "Do you want to allow this access?", "❯ 1.
// Yes" preselected (Enter approves), "2. Yes, and approve all URLs from …
// for the rest of the running session", "3. … permanently", "4. No, and
// tell Copilot what to do differently (Esc to stop)" and "↑/↓ to navigate
// · enter to select · esc to cancel"; any other command asks the same
// way, "Do you want to run this command?" under the command, "❯ 1. Yes",
// "2. Yes, and don't ask again for `touch` in this directory (…)", "3. No,
// …" (measured, not recorded: copilot_test.go). The dialog's text starts at
// the command above the box. Esc denies ("✗ Shell … The user rejected this
// tool call.", "● Operation cancelled by user": the turn ends, nothing
// reaches the model). A usage or rate limit (an HTTP 429) is one row, " ✗
// 429 <the provider's message>", at once and without a retry; the turn
// ends. Copilot shows no context gauge. "/exit" quits. The window title is
// "GitHub Copilot", then the first message with " - GitHub Copilot"; it
// says nothing of a dialog.

var copilotRules = &tuiRules{
	composer: ruledComposer(copilotInput),
	echoes:   indentedEchoes(" ❯ ", "   "),
	busy: res(
		`^\s*\S Working\b.*\besc (esc|again)\b`,
		`\besc esc interrupt\b`,
		`\besc again to interrupt\b`,
	),
	dialogHead: regexp.MustCompile(`^ \$ \S`),
	// "1. Yes" (allow this once); never "2. Yes, and approve all …".
	allowOnce: regexp.MustCompile(`^\d+\. Yes$`),
	dialog: concat(
		dialogs(DialogPermission,
			`Do you want to allow this access\?`,
			`Copilot is attempting to access`,
			`Do you want to run this command\?`,
		),
		dialogs(DialogOther,
			`↑/↓ to navigate · enter to select`,
		),
	),
	// "✗ 429 You exceeded your current quota, …"
	// (../testdata/cli-copilot/usage-limit-200x50).
	limits: res(
		`^✗ 429 `,
	),
}

func init() {
	Register(CLI{
		Name:     "copilot",
		Programs: []string{"copilot"},
		New:      copilotProfile,
		// The protocol goes into custom instructions of warden's, which
		// Copilot puts in its system prompt. Its hooks (preToolUse and the
		// like) are not installed yet: its answers and dialogs are read
		// off the screen.
		Settings: copilotSettings,
		Unattended: UnattendedRule{
			Flags: map[string][]string{
				"--allow-all-tools": nil,
				"--allow-all":       nil,
				"--yolo":            nil,
				"--allow-tool":      nil,
			},
			// COPILOT_ALLOW_ALL, as --allow-all-tools.
			Env: func(env map[string]string) bool {
				switch strings.ToLower(strings.TrimSpace(env["COPILOT_ALLOW_ALL"])) {
				case "true", "1", "yes", "on", "y":
					return true
				}
				return false
			},
			Hint: "--allow-tool 'write' (edits) and --allow-tool 'shell(CMD)' per command, or --allow-all-tools",
		},
		Init: InitAgent{
			Comment: "Unattended: Copilot edits files without asking; commands still ask\n" +
				"(add --allow-tool 'shell(go:*)' and the like for the commands it may run).",
			Command: []string{"copilot", "--allow-tool", "write"},
		},
	})
}

func copilotProfile() *Profile {
	p := tuiDefaults(&Profile{tui: copilotRules})
	p.Settle = 300 * time.Millisecond
	p.quit = []Keys{{Bytes: []byte("/exit")}, {Bytes: []byte("\r"), Pause: 700 * time.Millisecond}}
	return p
}

var copilotInput = regexp.MustCompile(`^❯ ?`)

// copilotInstructions is the dir of custom instructions warden writes,
// inside the agent's dir.
const copilotInstructions = "copilot-instructions"

// copilotSettings puts the protocol in a warden.instructions.md of its own
// dir, which COPILOT_CUSTOM_INSTRUCTIONS_DIRS (a comma-separated list: the
// user's own dirs stay) adds to the instructions Copilot puts in its system
// prompt (measured on 1.0.102: a file named *.instructions.md there, with
// no applyTo header, is in every request's system message; an AGENTS.md
// there is listed as "nested" and never sent).
func copilotSettings(o Options, files map[string][]byte) ([]string, []string, error) {
	if o.Protocol == "" || o.Dir == "" {
		return nil, nil, nil
	}
	dir := filepath.Join(o.Dir, copilotInstructions)
	files[filepath.Join(dir, "warden.instructions.md")] = []byte(o.Protocol + "\n")
	dirs := dir
	if own := o.env("COPILOT_CUSTOM_INSTRUCTIONS_DIRS"); own != "" {
		dirs = own + "," + dir
	}
	return nil, []string{"COPILOT_CUSTOM_INSTRUCTIONS_DIRS=" + dirs}, nil
}
