package profile

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/wardenhq/warden/internal/safefile"

	"github.com/wardenhq/warden/internal/tokenfile"
)

// Gemini CLI (measured on 0.61.0, protocol/testdata/cli-gemini). Every piece
// of Gemini's wording warden relies on is in this file.
//
// The input box is a " > " row framed by a row of ▄ above and ▀ below, with
// "Type your message or @path/to/file" when empty; sent messages stay in the
// transcript in the same frames, followed by the answer ("✦ …"). A turn
// shows a braille spinner row "⠸ Thinking... (esc to cancel, 0s)". The usage
// limit is a rounded box "Usage limit reached for MODEL." (with "Access
// resets at 10:54 PM UTC." when the API gives a delay) and a "1. Keep
// trying / 2. Stop" choice, drawn in place of the input box
// (geminiLimitDialog). It shows no warning before the limit.

var geminiInput = regexp.MustCompile(`^ ?> `)

var geminiRules = &tuiRules{
	composer:     geminiComposer,
	echoes:       geminiEchoes,
	placeholders: []string{"Type your message or @path/to/file"},
	busy: res(
		`esc to cancel`,
		`^\s*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] `,
		// Prompts sent before Gemini finished initializing wait in its
		// queue ("Initializing... Prompts will be queued.") until it has:
		// a turn is due, not over, and what is typed meanwhile may be
		// lost (measured under load: a checkpoint request typed then never
		// reached the box).
		`^\s*Queued \(press ↑ to edit\):`,
	),
	// What 0.61.0 prints (handleFinalSubmit) when a prompt is submitted
	// before it has initialized: the prompt waits in its queue, unseen in
	// the box, and runs once Gemini is ready.
	queued: regexp.MustCompile(`(?i)prompts will be queued\.`),
	// "1. Allow once"; never "2. Allow for this session".
	allowOnce: regexp.MustCompile(`^\d+\. Allow once$`),
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
	limitDialog: geminiLimitDialog,
}

// Gemini CLI's limit dialog, as 0.61.0 draws it
// (../testdata/cli-gemini/limit-reset-200x50), "Keep trying" preselected:
//
//	╭──────────────────────────────────────────╮
//	│ Usage limit reached for gemini-3.8-flash. │
//	│ Access resets at 10:54 PM UTC.            │
//	│ /stats model for usage details            │
//	│ /model to switch models.                  │
//	│ ● 1. Keep trying                          │
//	│   2. Stop                                 │
//	╰──────────────────────────────────────────╯
//
// While it waits nothing is sent. Enter on "Keep trying" sends the turn
// again: refused before the reset, answered after it. "Stop" ends the
// turn.
var (
	geminiLimitTitle = regexp.MustCompile(`^Usage limit reached for \S.*\.$`)
	geminiKeepTrying = regexp.MustCompile(`^(● )?(\d)\. (Keep trying)$`)
	geminiStop       = regexp.MustCompile(`^(● )?\d\. Stop$`)
)

// geminiLimitDialog recognises the dialog by its rows inside one box: the
// title, then both choices before the box's bottom edge. Its answer is
// Enter, only while "Keep trying" is the selected row.
func geminiLimitDialog(v *view) (*LimitKeep, int, bool) {
	top := -1
	var keep *LimitKeep
	stop := false
	for _, i := range v.own() {
		row := strings.TrimSpace(v.rows[i])
		t := unboxAll(v.rows[i])
		switch {
		case geminiLimitTitle.MatchString(t) && strings.HasPrefix(row, "│"):
			top, keep, stop = i, nil, false
		case top < 0:
		case strings.HasPrefix(row, "╰"):
			if keep != nil && stop {
				return keep, top, true
			}
			top = -1
		case !strings.HasPrefix(row, "│"):
			top = -1 // not inside the box
		case geminiKeepTrying.MatchString(t):
			m := geminiKeepTrying.FindStringSubmatch(t)
			keep = &LimitKeep{Choice: m[2] + ". " + m[3], AfterReset: true}
			if m[1] != "" {
				keep.Keys = []Keys{{Bytes: []byte("\r")}}
			}
		case geminiStop.MatchString(t):
			stop = true
		}
	}
	return nil, 0, false
}

func init() {
	Register(CLI{
		Name:     "gemini",
		Programs: []string{"gemini"},
		New:      geminiProfile,
		Kinds:    []string{KindGeminiAfterAgent, KindGeminiAfterModel, KindGeminiNotification},
		Hook:     geminiHook,
		Tokens: &TokenFiles{File: transcriptFile,
			Reader: func(p string) tokenfile.Reader { return tokenfile.NewGemini(p) }},
		Settings: func(o Options, files map[string][]byte) ([]string, []string, error) {
			env, err := geminiSettings(o, files)
			return nil, env, err
		},
		Unattended: UnattendedRule{
			Flags: map[string][]string{
				"--approval-mode": {"auto_edit", "yolo"},
				"--yolo":          nil,
				"-y":              nil,
				"--policy":        nil,
				"--allowed-tools": nil,
			},
			Hint: `--approval-mode auto_edit and --allowed-tools "run_shell_command(go)" … for what may run, as warden init ` +
				`writes it (docs/agent-clis.md, "Presets"); auto_edit alone still asks before every shell command`,
		},
		Preset: &geminiPreset,
		// Its login is in the user's home (warden's Gemini home links back
		// to ~/.gemini); a session at 1 GiB.
		AccountHome: func(env func(string) string) string { return cmp.Or(env("GEMINI_CLI_HOME"), env("HOME")) },
		Footprint:   1 << 30,
		Init: InitAgent{
			Comment:   geminiPreset.Comment,
			Command:   geminiPreset.Command("gemini"),
			Commented: `env = { CI = "false" }   # under CI, Gemini CLI refuses to be interactive`,
		},
	})
}

func geminiProfile() *Profile {
	p := tuiDefaults(&Profile{tui: geminiRules})
	p.Settle = 500 * time.Millisecond
	p.DropReplies = true
	// "/quit", Enter, and Enter once more 2 s later if it still runs: on a
	// loaded machine the first Enter met the command menu drawn late
	// ("quit  Exit the cli") and "/quit" stayed in the box (measured with
	// Gemini CLI 0.61.0). Once it has quit, no key is typed.
	p.quit = []Keys{{Bytes: []byte("/quit")}, {Bytes: []byte("\r"), Pause: 700 * time.Millisecond}, {Bytes: []byte("\r"), Pause: 2 * time.Second}}
	p.pasted = geminiPasted
	return p
}

// geminiPasted is what Gemini CLI's input box shows in place of a pasted
// text of more than 5 lines or 500 characters (0.61.0's text-buffer.ts,
// generatePastedTextId): "[Pasted Text: N lines]", N its lines, or
// "[Pasted Text: N chars]".
func geminiPasted(text string) string {
	lines := strings.Count(text, "\n") + 1
	switch {
	case lines > 5:
		return fmt.Sprintf("[Pasted Text: %d lines]", lines)
	case len(utf16.Encode([]rune(text))) > 500:
		return fmt.Sprintf("[Pasted Text: %d chars]", len(utf16.Encode([]rune(text))))
	}
	return ""
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

// Kinds of Gemini CLI hook message: the KIND of `warden hook KIND`.
const (
	// KindGeminiAfterAgent is Gemini CLI's AfterAgent hook: the answer.
	KindGeminiAfterAgent = "gemini-after-agent"
	// KindGeminiAfterModel is Gemini CLI's AfterModel hook (per streamed chunk).
	KindGeminiAfterModel = "gemini-after-model"
	// KindGeminiNotification is Gemini CLI's Notification hook (ToolPermission).
	KindGeminiNotification = "gemini-notification"
)

// GeminiHomeDir is the directory, inside Options.Dir, that warden gives
// Gemini CLI as GEMINI_CLI_HOME; its .gemini/settings.json is generated.
const GeminiHomeDir = "gemini-home"

// Why an overlay home. Gemini CLI 0.61.0 reads four settings files: system
// defaults, user (~/.gemini/settings.json), workspace (.gemini/ in the
// project) and system. GEMINI_CLI_SYSTEM_SETTINGS_PATH and
// GEMINI_CLI_SYSTEM_DEFAULTS_PATH move the system files, but the CLI skips a
// system file unless it and every directory above it are owned by root and
// not writable by group or others ("Security Warning: Skipping system
// defaults file …", measured), so they are no use to a normal user. A
// project-level file would write into the user's repository and needs
// folder trust. What is left is GEMINI_CLI_HOME, which moves ~/.gemini as a
// whole: warden points it at D/gemini-home, whose .gemini/ holds a settings.json
// that is the user's own plus warden's hooks, and a symlink to every other
// entry of the user's ~/.gemini (login, accounts, history, extensions,
// trusted folders), so the login and everything the CLI writes stay the
// user's. The user's ~/.agents is linked too (the CLI looks for it beside
// .gemini). Two consequences: a setting changed with /settings during a
// warden session lands in the copy and is gone at the next start; and an
// agent whose working directory is the user's home no longer sees it as
// home, so ~/.gemini/settings.json is read as workspace settings too.
//
// Hooks from settings need no approval (only project hooks print a warning
// the first time), but none run in a folder the user has not trusted when
// folder trust is on; that is the user's choice, and the same trust dialog
// would block the agent's first prompt anyway.

// geminiMemory is Gemini CLI's global memory file in ~/.gemini.
const geminiMemory = "GEMINI.md"

// geminiHookTimeoutMS is the per-hook timeout Gemini enforces; warden hook
// exits within 1 s on its own.
const geminiHookTimeoutMS = 3000

func geminiSettings(o Options, files map[string][]byte) ([]string, error) {
	userHome := o.env("GEMINI_CLI_HOME")
	if userHome == "" {
		userHome = o.env("HOME")
	}
	if userHome == "" {
		return nil, fmt.Errorf("no HOME in the agent's environment")
	}
	userDir := filepath.Join(userHome, ".gemini")
	settings := map[string]any{}
	if b, err := o.readFile(filepath.Join(userDir, "settings.json")); err == nil && len(b) > 0 {
		if err := json.Unmarshal(stripJSONComments(b), &settings); err != nil {
			return nil, fmt.Errorf("parse %s: %w", filepath.Join(userDir, "settings.json"), err)
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	hooksMap, _ := settings["hooks"].(map[string]any)
	if hooksMap == nil {
		hooksMap = map[string]any{}
	}
	add := func(event, kind string) {
		list, _ := hooksMap[event].([]any)
		hooksMap[event] = append(list, map[string]any{"hooks": []any{map[string]any{
			"type": "command", "name": "warden-" + kind, "command": o.hookCommand(kind),
			"timeout": geminiHookTimeoutMS, "env": o.hookEnv()}}})
	}
	add("AfterAgent", KindGeminiAfterAgent)
	add("AfterModel", KindGeminiAfterModel)
	add("Notification", KindGeminiNotification)
	settings["hooks"] = hooksMap
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode gemini settings: %w", err)
	}
	home := filepath.Join(o.Dir, GeminiHomeDir)
	if err := linkGeminiHome(o.Dir, home, userHome); err != nil {
		return nil, err
	}
	files[filepath.Join(home, ".gemini", "settings.json")] = append(b, '\n')
	if o.Protocol != "" {
		// The global GEMINI.md is memory the CLI puts in its system
		// instruction, which a compression of the chat keeps: the user's
		// own, then warden's protocol.
		memory, err := o.readFile(filepath.Join(userDir, geminiMemory))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if len(memory) > 0 {
			memory = append(bytes.TrimRight(memory, "\n"), '\n', '\n')
		}
		files[filepath.Join(home, ".gemini", geminiMemory)] = append(memory, []byte(o.Protocol)...)
	}
	return []string{"GEMINI_CLI_HOME=" + home}, nil
}

// linkGeminiHome (re)creates the overlay: home/.gemini/ENTRY -> the user's
// ~/.gemini/ENTRY for every entry but settings.json, and home/.agents. Old
// links are renewed; an entry the CLI created in the overlay because the
// user had none (a first run's tmp/) is kept. home/.gemini is made inside
// root (the agent's settings dir) without following a symbolic link: one
// planted there would have the overlay written into the user's ~/.gemini.
func linkGeminiHome(root, home, userHome string) error {
	dir := filepath.Join(home, ".gemini")
	if err := safefile.MkdirAll(root, dir); err != nil {
		return fmt.Errorf("create gemini overlay home: %w", err)
	}
	userDir := filepath.Join(userHome, ".gemini")
	ents, err := os.ReadDir(userDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("list %s: %w", userDir, err)
	}
	links := map[string]string{filepath.Join(home, ".agents"): filepath.Join(userHome, ".agents")}
	for _, e := range ents {
		if e.Name() != "settings.json" && e.Name() != geminiMemory {
			links[filepath.Join(dir, e.Name())] = filepath.Join(userDir, e.Name())
		}
	}
	for link, target := range links {
		if _, err := os.Lstat(target); err != nil {
			continue
		}
		if st, err := os.Lstat(link); err == nil {
			if st.Mode()&fs.ModeSymlink == 0 {
				continue
			}
			if err := os.Remove(link); err != nil {
				return fmt.Errorf("renew gemini overlay link: %w", err)
			}
		}
		if err := os.Symlink(target, link); err != nil {
			return fmt.Errorf("link gemini overlay: %w", err)
		}
	}
	return nil
}

// GeminiTokenLimit is Gemini CLI 0.61.0's tokenLimit(model): 256 000 for the
// Gemma 4 models, 1 048 576 (its DEFAULT_TOKEN_LIMIT) for every other model.
// The CLI does not report the limit, so this mirrors its table.
func GeminiTokenLimit(model string) int {
	switch model {
	case "gemma-4-31b-it", "gemma-4-26b-a4b-it":
		return 256000
	}
	return 1048576
}

// GeminiAfterAgent returns prompt_response of Gemini CLI's AfterAgent hook
// payload. It may hold more than one copy of a block; read the first.
func GeminiAfterAgent(payload []byte) (text string) {
	var p struct {
		PromptResponse string `json:"prompt_response"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return ""
	}
	return p.PromptResponse
}

// GeminiAfterModel returns llm_response.usageMetadata.promptTokenCount of an
// AfterModel hook payload (0 when the chunk carries no usage).
func GeminiAfterModel(payload []byte) (promptTokens int) {
	tokens, _ := geminiAfterModel(payload)
	return tokens
}

// GeminiPercent returns the prompt's share of the context window in percent
// for an AfterModel payload that carries usage. limit 0 takes the model's
// limit from GeminiTokenLimit (llm_request.model).
func GeminiPercent(payload []byte, limit int) (percent float64, ok bool) {
	tokens, model := geminiAfterModel(payload)
	if tokens <= 0 {
		return 0, false
	}
	if limit <= 0 {
		limit = GeminiTokenLimit(model)
	}
	return 100 * float64(tokens) / float64(limit), true
}

func geminiAfterModel(payload []byte) (tokens int, model string) {
	var p struct {
		Request struct {
			Model string `json:"model"`
		} `json:"llm_request"`
		Response struct {
			Usage struct {
				PromptTokenCount int `json:"promptTokenCount"`
			} `json:"usageMetadata"`
		} `json:"llm_response"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return 0, ""
	}
	return p.Response.Usage.PromptTokenCount, p.Request.Model
}

// geminiHook reads a message of Gemini CLI's hooks.
func geminiHook(kind string, payload []byte) HookFacts {
	var f HookFacts
	switch kind {
	case KindGeminiAfterAgent:
		f.Answer, f.HasAnswer = GeminiAfterAgent(payload), true
	case KindGeminiAfterModel:
		f.Gauge, f.HasGauge = GeminiPercent(payload, 0)
	case KindGeminiNotification:
		var p waitingPayload
		if json.Unmarshal(payload, &p) == nil && p.Type == "ToolPermission" {
			f.Dialog = &Dialog{Kind: DialogPermission, Text: joinNonEmpty(": ", p.Message, firstOf(p.Details.Command, p.Details.Title))}
		} else if p.Type != "" {
			f.Dialog = &Dialog{Kind: DialogOther, Text: p.Message}
		}
	}
	if f.UsageFile = transcriptPath(payload); f.UsageFile != "" {
		f.UsageCLI = "gemini"
	}
	return f
}
