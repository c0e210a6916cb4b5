package profile

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Qwen Code (measured on 0.24.4, protocol/testdata/cli-qwen), a fork of
// Gemini CLI with its own screen. Every piece of Qwen's wording warden
// relies on is in this file.
//
// The input box is a "> " row between two full-width "────" rules, with
// "Type your message or @path/to/file" when empty, and below it the footer
// "➜ project · MODEL" and the approval mode ("Auto mode (shift + tab to
// cycle)", the default of 0.24.4, where an LLM classifier approves or blocks
// each tool call; "⏸ Ask permissions" in --approval-mode default). Sent
// messages stay in the transcript as "  > text" rows, continued on rows
// indented by four; answers are "  ◆︎ …" rows (◆ and VARIATION SELECTOR-15).
// A turn shows a braille spinner row "⠋ Warp speed engaged... (0s · esc to
// cancel)" and the footer "Enter to steer · Ctrl+Q to queue" (text typed
// while a turn runs steers it). A shell command to approve is drawn in
// place of the input box: "? Shell COMMAND (DESCRIPTION) ←", "Allow
// execution of: 'curl'?", "› 1. Yes, allow once" preselected (Enter
// approves) … "4. No, suggest changes (esc)", and "⠏ Waiting for user
// confirmation..."; Esc denies ("- Shell …" stays in the transcript, the
// turn ends, nothing reaches the model). The window title is "Qwen -
// project" (a spinner glyph before it during a turn); it says nothing of a
// dialog.

var qwenRules = &tuiRules{
	composer:     ruledComposer(qwenInput),
	echoes:       indentedEchoes("  > ", "    "),
	placeholders: []string{"Type your message or @path/to/file"},
	busy: res(
		`esc to cancel`,
		`Enter to steer`,
		`^\s*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] `,
	),
	// "1. Yes, allow once"; never "Always allow …".
	allowOnce: regexp.MustCompile(`^\d+\. Yes, allow once$`),
	dialog: concat(
		dialogs(DialogPermission,
			`Allow execution of`,
			`Apply this change\?`,
			`Do you want to proceed`,
		),
		dialogs(DialogOther,
			`^\s*› \d+\. `,
		),
	),
	// "✕ Quota exhausted: <the provider's message> … (Press Ctrl+Y to
	// retry)", which Qwen shows at once (no retries) for a message naming
	// a quota that will reset (../testdata/cli-qwen/usage-limit-200x50);
	// its own free tier's words are from its code.
	limits: res(
		`^✕ Quota exhausted: `,
		`(?i)free allocated quota exceeded`,
	),
}

func init() {
	Register(CLI{
		Name:     "qwen",
		Programs: []string{"qwen"},
		New:      qwenProfile,
		// The protocol goes into the system prompt, which a compression of
		// the chat keeps. Qwen's hooks (Claude's names: Stop,
		// PermissionRequest, Notification in ~/.qwen/settings.json) are not
		// installed yet: its answers and dialogs are read off the screen.
		Settings: qwenSettings,
		Unattended: UnattendedRule{
			Flags: map[string][]string{
				"--approval-mode": {"auto-edit", "auto", "yolo"},
				"--yolo":          nil,
				"-y":              nil,
			},
			Hint: "--approval-mode auto-edit (edits), or auto (its model classifier approves what it judges safe)",
		},
		Init: InitAgent{
			Comment: "Unattended: Qwen Code edits files without asking; commands still ask\n" +
				"(--approval-mode auto lets its own model classifier approve what it judges safe).",
			Command: []string{"qwen", "--approval-mode", "auto-edit"},
		},
	})
}

func qwenProfile() *Profile {
	p := tuiDefaults(&Profile{tui: qwenRules})
	p.Settle = 500 * time.Millisecond
	// As in Gemini CLI, whose input handling Qwen keeps: a terminal reply
	// read late would be taken as keys, and a "1" picks "Yes, allow once".
	p.DropReplies = true
	// "/quit", Enter, and Enter once more 2 s later if it still runs: on a
	// loaded machine the first Enter met the command menu drawn late
	// ("quit  Exit the cli") and "/quit" stayed in the box (measured with
	// Gemini CLI 0.61.0). Once it has quit, no key is typed.
	p.quit = []Keys{{Bytes: []byte("/quit")}, {Bytes: []byte("\r"), Pause: 700 * time.Millisecond}, {Bytes: []byte("\r"), Pause: 2 * time.Second}}
	// After Enter Qwen takes its box off the screen and draws the turn's
	// spinner over where it was a moment later (every Enter of
	// ../testdata/cli-qwen: neither box nor turn for a stretch of output);
	// on a loaded machine that moment lasts seconds. Submit waits for what
	// it draws next.
	p.redrawsAfterEnter = true
	return p
}

var qwenInput = regexp.MustCompile(`^> `)

// qwenDefaultsFile is Qwen's system-defaults file warden writes, inside the
// agent's dir.
const qwenDefaultsFile = "qwen-system-defaults.json"

// qwenSystemDefaults is where Qwen reads its system defaults when
// QWEN_CODE_SYSTEM_DEFAULTS_PATH does not say (Linux).
const qwenSystemDefaults = "/etc/qwen-code/system-defaults.json"

// qwenSettings puts the protocol in the system prompt and turns Qwen's
// follow-up suggestions off. Those (on by default in 0.24.4) fill the empty
// input box, after a clean turn, with a model-written guess at the next
// prompt as dim placeholder text: warden, which reads text and not its
// colour, took it for a person's draft and typed nothing more (measured:
// "Understood, going on without it." in the box after a denied dialog, and
// the agent stalled); and Enter accepts it. The setting goes into a system
// defaults file of warden's (QWEN_CODE_SYSTEM_DEFAULTS_PATH, the lowest
// layer: the user's own settings still win), holding the user's own
// system defaults too.
func qwenSettings(o Options, files map[string][]byte) ([]string, []string, error) {
	var args []string
	if o.Protocol != "" {
		args = []string{"--append-system-prompt", o.Protocol}
	}
	if o.Dir == "" {
		return args, nil, nil
	}
	own := o.env("QWEN_CODE_SYSTEM_DEFAULTS_PATH")
	if own == "" {
		own = qwenSystemDefaults
	}
	defaults := map[string]any{}
	if b, err := o.readFile(own); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		if err := json.Unmarshal(b, &defaults); err != nil {
			return nil, nil, fmt.Errorf("qwen system defaults %s: not a JSON object: %w", own, err)
		}
	}
	ui, _ := defaults["ui"].(map[string]any)
	if ui == nil {
		ui = map[string]any{}
	}
	ui["enableFollowupSuggestions"] = false
	defaults["ui"] = ui
	b, err := json.MarshalIndent(defaults, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("encode qwen system defaults: %w", err)
	}
	path := filepath.Join(o.Dir, qwenDefaultsFile)
	files[path] = b
	return args, []string{"QWEN_CODE_SYSTEM_DEFAULTS_PATH=" + path}, nil
}
