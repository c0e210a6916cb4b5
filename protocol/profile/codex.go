package profile

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/wardenhq/warden/internal/tokenfile"
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
// limit is "■ You’ve hit your usage limit. … or try again at 10:53 PM."
// ("… at Nov 26th, 2026 12:40 AM." for another day); from 90 % of a
// window a turn shows "⚠ Heads up, you have less than 5% of your 5h limit
// left. …"; at either, once a session, the model-switch dialog opens
// (codexLimitDialog).

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
	// "1. Yes, proceed (y)"; never "2. Yes, and don't ask again …".
	allowOnce: regexp.MustCompile(`^\d+\. Yes, proceed( \(y\))?$`),
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
	limits:       codexLimits,
	approaching:  res(`^⚠ Heads up, you have less than \d+% of your \S+ limit left\b`),
	limitRead:    codexLimit,
	limitDialog:  codexLimitDialog,
}

// codexLimits are Codex's usage-limit banners ("■ …").
var codexLimits = res(
	`(?i)you['’]ve hit your usage limit`,
	`(?i)quota exceeded\. check your plan`,
)

// codexLimit: a banner the turn went on past is over. While Codex redraws
// its input box after Enter, the message just sent is the last "› " row
// and reads as the box, with the banner above it: such a "box" holds text
// and has none of the status rows under it that the real one has; or a
// "• " row under the banner (the turn working, its answer) says the limit
// is behind.
func codexLimit(v *view, _ time.Time) limitSigns {
	if v.hasBox && strings.TrimSpace(v.text) != "" &&
		!slices.ContainsFunc(v.rows[v.box.to+1:], func(r string) bool { return strings.TrimSpace(r) != "" }) {
		return limitSigns{over: true}
	}
	banner := -1
	for _, i := range v.own() {
		t := strings.TrimSpace(v.rows[i])
		switch {
		case strings.HasPrefix(t, "■ ") && slices.ContainsFunc(codexLimits, func(re *regexp.Regexp) bool { return re.MatchString(t) }):
			banner = i
		case banner >= 0 && strings.HasPrefix(t, "• "):
			return limitSigns{over: true}
		}
	}
	return limitSigns{}
}

// Codex's model-switch dialog, as 0.169.0 draws it near the limit and at
// it (../testdata/cli-codex/near-limit-200x50, limit-reset-200x50), the
// switch preselected, in place of the input box:
//
//	  Approaching rate limits
//	  Switch to gpt-6-luna for lower credit usage?
//
//	› 1. Switch to gpt-6-luna                   Fast and affordable model …
//	  2. Keep current model
//	  3. Keep current model (never show again)  Hide future rate limit …
//
//	  enter select · esc back
//
// A digit picks its row at once; "2" keeps the model and sends nothing.
// "3" would also change the user's settings, Enter the model.
var (
	codexLimitTitle  = regexp.MustCompile(`^\s*Approaching rate limits$`)
	codexLimitSwitch = regexp.MustCompile(`^\s*Switch to \S+ for lower credit usage\?$`)
	codexChoiceRow   = regexp.MustCompile(`^(?:› |  )\d+\. `)
	codexKeepModel   = regexp.MustCompile(`^(?:› |  )(\d)\. (Keep current model)$`)
)

// codexLimitDialog recognises the model-switch dialog from its last row
// up: the footer, only choice rows and blank rows above it, then the
// question and the title; the keep row is the one without "(never show
// again)".
func codexLimitDialog(v *view) (*LimitKeep, int, bool) {
	own := v.own()
	foot := -1
	for _, i := range own {
		if strings.TrimSpace(v.rows[i]) != "" {
			foot = i
		}
	}
	if foot < 0 || strings.TrimSpace(v.rows[foot]) != "enter select · esc back" {
		return nil, 0, false
	}
	var keep *LimitKeep
	choices := 0
	for i := foot - 1; i > 0; i-- {
		row := v.rows[i]
		switch {
		case v.typed(i):
			return nil, 0, false
		case strings.TrimSpace(row) == "":
		case codexChoiceRow.MatchString(row):
			choices++
			if m := codexKeepModel.FindStringSubmatch(row); m != nil {
				keep = &LimitKeep{Choice: m[1] + ". " + m[2], Keys: []Keys{{Bytes: []byte(m[1])}}}
			}
		case codexLimitSwitch.MatchString(row) && codexLimitTitle.MatchString(v.rows[i-1]) && choices > 0 && keep != nil:
			return keep, i - 1, true
		default:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

func init() {
	Register(CLI{
		Name:     "codex",
		Programs: codexPrograms,
		// --no-alt-screen: finished lines flow into scrollback, where the
		// reader finds them. --no-daemon: otherwise an app-server daemon is
		// re-parented to init and outlives the process group.
		Flags: []string{"--no-alt-screen", "--no-daemon"},
		New:   codexProfile,
		Kinds: []string{KindCodexNotify, KindCodexTokenCount},
		Hook:  codexHook,
		Calls: map[string]HookCall{KindCodexNotify: {ArgPayload: true, Then: codexTokenCountAfter}},
		// A thread's rollout file, found under the agent's CODEX_HOME once
		// Codex has written it.
		AppServer: &codexAppServer,
		Tokens: &TokenFiles{
			File: func(f HookFacts, env []string) (string, string, bool) {
				if f.UsageThread == "" {
					return "", "", false
				}
				return f.UsageThread, tokenfile.CodexRollout(CodexHome(env), f.UsageThread), true
			},
			Reader: func(p string) tokenfile.Reader { return tokenfile.NewCodex(p) },
		},
		Settings: func(o Options, _ map[string][]byte) ([]string, []string, error) {
			args, err := codexSettings(o)
			return args, nil, err
		},
		Unattended: UnattendedRule{
			Flags: map[string][]string{
				"--ask-for-approval": {"never"},
				"-a":                 {"never"},
				"--full-auto":        nil,
				"--yolo":             nil,
				"--dangerously-bypass-approvals-and-sandbox": nil,
				codexApproveForMe: nil, // a model answers (ModelApproves warns)
			},
			// -c approval_policy="never"; -c approvals_reviewer="auto_review"
			Option: func(flag, v string) bool {
				k, val, ok := strings.Cut(v, "=")
				return (flag == "-c" || flag == "--config") && ok &&
					strings.TrimSpace(k) == "approval_policy" && strings.Contains(val, "never") ||
					codexReviewerOption(flag, v)
			},
			Hint: "--ask-for-approval never --sandbox workspace-write",
		},
		ModelApproves: codexModelApproves,
		Preset:        &codexPreset,
		Init:          InitAgent{Comment: codexPreset.Comment, Command: codexPreset.Command("codex")},
		// Its login is in CODEX_HOME (or ~/.codex); a session at 1 GiB.
		AccountHome: func(env func(string) string) string { return cmp.Or(env("CODEX_HOME"), homeSub(env, ".codex")) },
		Footprint:   1 << 30,
	})
}

func codexProfile() *Profile {
	p := tuiDefaults(&Profile{tui: codexRules})
	p.Settle = 300 * time.Millisecond
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

// Kinds of Codex hook message: the KIND of `warden hook KIND`.
const (
	// KindCodexNotify is Codex's notify program (agent-turn-complete).
	KindCodexNotify = "codex-notify"
	// KindCodexTokenCount is not called by Codex: `warden hook codex-notify`
	// sends it after the notify message, holding the newest token_count line
	// of the session's rollout file.
	KindCodexTokenCount = "codex-token-count"
)

// codexSettings overrides notify on the command line (-c), so the user's
// config.toml is untouched. A notify program the user configured there
// keeps running: its argv goes after the kind, and `warden hook
// codex-notify` starts it with the same JSON argument.
func codexSettings(o Options) ([]string, error) {
	argv := []string{o.WardenBin, "hook", KindCodexNotify}
	argv = append(argv, o.userCodexNotify()...)
	quoted := make([]string, len(argv))
	for i, a := range argv {
		if !utf8.ValidString(a) {
			return nil, fmt.Errorf("notify argument %d is not UTF-8", i)
		}
		quoted[i] = tomlString(a)
	}
	args := []string{"-c", "notify=[" + strings.Join(quoted, ",") + "]"}
	if o.Protocol != "" {
		// Developer instructions are rebuilt into every context, compacted or not.
		args = append(args, "-c", "developer_instructions="+tomlString(o.Protocol))
	}
	return args, nil
}

// CodexHome is the agent's CODEX_HOME: the variable, or ~/.codex.
func CodexHome(env []string) string {
	o := Options{Env: env}
	if h := o.env("CODEX_HOME"); h != "" {
		return h
	}
	if home := o.env("HOME"); home != "" {
		return filepath.Join(home, ".codex")
	}
	return ""
}

func (o Options) userCodexNotify() []string {
	home := CodexHome(o.Env)
	if home == "" {
		return nil
	}
	b, err := o.readFile(filepath.Join(home, "config.toml"))
	if err != nil {
		return nil
	}
	var cfg struct {
		Notify []string `toml:"notify"`
	}
	if _, err := toml.Decode(string(b), &cfg); err != nil {
		return nil
	}
	return cfg.Notify
}

// LastCodexTokenCount returns the newest token_count line of a rollout
// file, reading at most its last tail bytes (0: 1 MiB).
func LastCodexTokenCount(path string, tail int64) ([]byte, error) {
	if tail <= 0 {
		tail = 1 << 20
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open rollout: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat rollout: %w", err)
	}
	off := max(st.Size()-tail, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("read rollout: %w", err)
	}
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(buf))
	sc.Buffer(make([]byte, 64<<10), int(tail)+1)
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.Contains(line, []byte(`"token_count"`)) {
			if _, ok := codexTokenInfo(line); ok {
				last = append(last[:0], line...)
			}
		}
	}
	if last == nil {
		return nil, fmt.Errorf("no token_count in the last %s bytes of the rollout", strconv.FormatInt(tail, 10))
	}
	return last, nil
}

// rolloutWait is how long `warden hook codex-notify` looks for the
// session's token_count in its rollout file.
const rolloutWait = 300 * time.Millisecond

// codexTokenCountAfter is what `warden hook codex-notify` sends after the
// notify message: for the session's own turns (not Codex's title turn), the
// newest token_count line of its rollout file, found through CODEX_HOME or
// HOME, looked for during rolloutWait.
func codexTokenCountAfter(payload []byte, getenv func(string) string) (string, []byte, error) {
	_, thread, title := CodexNotify(payload)
	if title || thread == "" {
		return "", nil, nil
	}
	home := CodexHome([]string{"CODEX_HOME=" + getenv("CODEX_HOME"), "HOME=" + getenv("HOME")})
	deadline := time.Now().Add(rolloutWait)
	for {
		var err error
		if path := tokenfile.CodexRollout(home, thread); path == "" {
			err = fmt.Errorf("no rollout file for the thread")
		} else if line, lerr := LastCodexTokenCount(path, 0); lerr == nil {
			return KindCodexTokenCount, line, nil
		} else {
			err = lerr
		}
		if time.Now().After(deadline) {
			return "", nil, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// codexTitlePrompt starts the input of Codex's own thread-title turn.
const codexTitlePrompt = "Generate a concise"

// CodexNotify reads the JSON argument Codex passes to its notify program on
// agent-turn-complete. isTitleTurn is true for Codex's own title-generation
// turn, which repeats the answer under another thread id: skip those.
func CodexNotify(arg []byte) (text, threadID string, isTitleTurn bool) {
	var p struct {
		Type          string   `json:"type"`
		ThreadID      string   `json:"thread-id"`
		InputMessages []string `json:"input-messages"`
		LastMessage   *string  `json:"last-assistant-message"`
	}
	if json.Unmarshal(arg, &p) != nil {
		return "", "", false
	}
	for _, in := range p.InputMessages {
		if strings.HasPrefix(strings.TrimSpace(in), codexTitlePrompt) && strings.Contains(in, "title") {
			isTitleTurn = true
		}
	}
	if p.LastMessage != nil {
		text = *p.LastMessage
	}
	return text, p.ThreadID, isTitleTurn
}

// CodexTokenCount reads one line of a Codex rollout file; for an event_msg
// of type token_count it returns last_token_usage.input_tokens over
// model_context_window in percent.
func CodexTokenCount(line []byte) (percent float64, ok bool) {
	info, ok := codexTokenInfo(line)
	if !ok || info.Window <= 0 || info.Last == nil {
		return 0, false
	}
	return 100 * float64(info.Last.InputTokens) / float64(info.Window), true
}

// CodexRateLimits returns the rate_limits of a token_count rollout line
// (primary and secondary windows), nil when absent.
func CodexRateLimits(line []byte) []RateLimit {
	var p struct {
		Type    string `json:"type"`
		Payload struct {
			Type       string `json:"type"`
			RateLimits map[string]*struct {
				UsedPercent float64 `json:"used_percent"`
				ResetsAt    int64   `json:"resets_at"`
			} `json:"rate_limits"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &p) != nil || p.Payload.Type != "token_count" {
		return nil
	}
	var out []RateLimit
	for _, w := range []string{"primary", "secondary"} {
		if r := p.Payload.RateLimits[w]; r != nil {
			out = append(out, RateLimit{Window: w, UsedPercent: r.UsedPercent, ResetsAt: r.ResetsAt})
		}
	}
	return out
}

type codexUsage struct {
	InputTokens int `json:"input_tokens"`
}

type codexInfo struct {
	Last   *codexUsage `json:"last_token_usage"`
	Window int         `json:"model_context_window"`
}

func codexTokenInfo(line []byte) (codexInfo, bool) {
	var p struct {
		Type    string `json:"type"`
		Payload struct {
			Type string     `json:"type"`
			Info *codexInfo `json:"info"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &p) != nil || p.Type != "event_msg" || p.Payload.Type != "token_count" || p.Payload.Info == nil {
		return codexInfo{}, false
	}
	return *p.Payload.Info, true
}

// codexHook reads Codex's notify message and the token_count line warden
// takes from its rollout file.
func codexHook(kind string, payload []byte) HookFacts {
	var f HookFacts
	switch kind {
	case KindCodexNotify:
		text, thread, title := CodexNotify(payload)
		f.Answer, f.HasAnswer = text, !title
		if !title && thread != "" {
			f.UsageThread, f.UsageCLI = thread, "codex"
		}
	case KindCodexTokenCount:
		f.Gauge, f.HasGauge = CodexTokenCount(payload)
		f.Limits = CodexRateLimits(payload)
	}
	return f
}
