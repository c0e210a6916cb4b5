package profile

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/wardenhq/warden/internal/tokenfile"
)

// Claude Code (measured on 2.1.332, protocol/testdata/cli-claude). Every
// piece of Claude's wording warden relies on is in this file.
//
// The input box is a "❯ " row between two full-width "────" rules, with the
// footer below it ("⏵⏵ auto mode on (shift+tab to cycle) · ← for agents" in
// the default auto mode, "⏸ manual mode on · ? for shortcuts" otherwise).
// A permission dialog takes the box's place once fully drawn, after a rule:
// "Do you want to proceed?" with "❯ 1. Yes" (default mode) or "❯ No" (auto
// mode, after an "Auto mode can't check actions" explainer), ending with
// "Esc to cancel · Tab to amend". 2.1.332 draws it at the bottom of the
// screen (2.1.330 right under the transcript); nothing here reads its row.
// The user's own messages stay in the transcript as "❯ text" rows (without
// the rules), continued on rows indented by two spaces. While a turn runs
// the footer says "esc to interrupt" and a spinner row reads
// "✢ Cerebrating… (0s · ↓ 2 tokens)"; a finished turn leaves
// "✻ Cooked for 0s". The usage limit is an error in the transcript, read
// by claudeLimit below.

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
	// "1. Yes" in the default mode, "Yes" under No in auto mode; never
	// "2. Yes, and always allow …" nor "3. Yes, and switch to auto mode".
	allowOnce: regexp.MustCompile(`^(\d+\. )?Yes$`),
	dialog: concat(
		dialogs(DialogPermission,
			`Do you want to proceed\?`,
			`Do you want to (make this edit|create|allow|run)`,
			`needs your approval`,
			claudeAutoOffer, // "Auto mode can't check actions in this session" (claude_automode.go)
		),
		dialogs(DialogOther,
			`^\s*❯ \d+\. `, // a choice list
			`^\s*❯ (No|Yes)$`,
			`Do you want to `,
			`Yes, I trust this folder`,
			`(?i)enter to confirm`,
			`Esc to cancel · Tab to amend`,
		),
	),
	// Older wordings and the API-key error, in any paragraph of output;
	// the subscription banner of 2.1.332 is claudeLimit's.
	limits: res(
		`(?i)you['’]ve (?:hit|reached) your\b[^.]*\blimit`, // "You've hit your limit · resets 3pm (Europe/Berlin)", "… session limit", "… weekly limit"
		`(?i)you['’]re out of (?:extra )?usage`,            // "You're out of extra usage · resets 9pm"
		`(?i)\b\d+-hour limit reached`,                     // "5-hour limit reached ∙ resets 1am"
		`(?i)claude (?:ai )?usage limit reached`,           // "Claude usage limit reached. Your limit will reset at 3pm"
		`API Error: .*\(429\)`,                             // API key: "Request rejected (429) · … rate limit. Please try again later."
	),
	// In the binary of 2.1.332 (a transcript notice), not recorded.
	approaching: res(`Approaching your .*usage limit — Claude will wrap up the current step`),
	limitRead:   claudeLimit,
}

func init() {
	Register(CLI{
		Name:     "claude",
		Programs: []string{"claude", "claude.exe"},
		New:      claudeProfile,
		Kinds:    []string{KindClaudeStop, KindClaudeStopFailure, KindClaudeStatus, KindClaudePermission, KindClaudeNotification},
		Hook:     claudeHook,
		Calls:    map[string]HookCall{KindClaudeStatus: {StatusLine: ClaudeStatusLine}},
		Tokens: &TokenFiles{File: transcriptFile,
			Reader: func(p string) tokenfile.Reader { return tokenfile.NewClaude(p) }},
		Settings: func(o Options, files map[string][]byte) ([]string, []string, error) {
			args, err := claudeSettings(o, files)
			return args, nil, err
		},
		Unattended: UnattendedRule{
			Flags: map[string][]string{
				"--permission-mode":              {"acceptEdits", "auto", "bypassPermissions", "dontAsk"},
				"--dangerously-skip-permissions": nil,
				"--allowedTools":                 nil,
				"--allowed-tools":                nil,
			},
			Hint: `--permission-mode dontAsk and --allowedTools "Bash(go:*)" … for what may run, as warden init writes it ` +
				`(docs/agent-clis.md, "Presets"); --permission-mode acceptEdits still asks before any other command`,
		},
		ModelApproves: claudeModelApproves,
		Preset:        &claudePreset,
		Init:          InitAgent{Comment: claudePreset.Comment, Command: claudePreset.Command("claude")},
		// Its login is in CLAUDE_CONFIG_DIR (or ~/.claude); a session at 2 GiB
		// (field reports put one at 1.5–2 GB).
		AccountHome: func(env func(string) string) string { return cmp.Or(env("CLAUDE_CONFIG_DIR"), homeSub(env, ".claude")) },
		Footprint:   2 << 30,
	})
}

func claudeProfile() *Profile {
	p := tuiDefaults(&Profile{tui: claudeRules})
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

// Claude Code's usage limit (2.1.332 signed in to claude.ai,
// ../testdata/cli-claude/limit-subscriber-200x50; the other states'
// wording from its binary). At the limit it draws, right under the
// refused prompt's echo, "  ⎿ \u00a0You've hit your 5-hour limit · resets
// 10:50pm (UTC)" — the "⎿ " and the no-break space are how Claude marks a
// result row — then "● Usage limit reached · set to continue
// automatically at 10:50pm", and below the input box the footer "⚠ Usage
// limit reached · limit resets 10:50pm" / "Continuing automatically at
// 10:50pm · Esc to cancel" ("Continuing shortly · Esc to cancel" once
// the reset passed). 30–120 s after the reset it continues by itself: "●
// Usage limit reset · Continuing automatically", and the footer goes. Its
// warning before the limit, "You've used 95% of your 5-hour limit ·
// resets 12:49am (UTC)", is drawn right-aligned on the row above the
// input box.
var (
	claudeHit     = regexp.MustCompile(`^  ⎿ \x{a0}(You['’]ve (?:hit|reached) your .*\blimit\b.*)$`)
	claudeArmed   = regexp.MustCompile(`^● Usage limit reached(?: again)? · set to continue automatically\b`)
	claudeNoAuto  = regexp.MustCompile(`^. Automatic continue (?:cancelled|was turned off|stopped|did not run)\b`)
	claudeOver    = regexp.MustCompile(`^● Usage limit (?:reset · Continuing automatically|available again · continuing now|has reset · Press enter to continue)`)
	claudeFooter  = regexp.MustCompile(`^\s*⚠ (Usage limit reached\b.*)$`)
	claudeAuto    = regexp.MustCompile(`^\s*Continuing (?:automatically\b.*|shortly) · Esc to cancel$`)
	claudeWrapped = regexp.MustCompile(`^ {5}\S`)
	claudeNear    = regexp.MustCompile(`You['’]ve used \d+% of your \S.*\blimit\b|Over \d+% of your \S.* used`)
)

// claudeLimit reads Claude's limit rows. The banner row counts when it
// ends the last echo (under the typed prompt) or is Claude's own output,
// and Claude confirms it: the footer below the input box (which neither
// typed text nor the model can draw), or its "set to continue
// automatically" row right below it, or nothing but its limit rows below
// it with no turn running and the input box empty. Claude echoes typed
// text as it was typed, no-break space included, so a prompt may end with
// the banner's very row; but it is followed by a running turn and an
// answer, so it never counts.
func claudeLimit(v *view, now time.Time) limitSigns {
	var out limitSigns
	start, end := 0, len(v.rows)
	if n := len(v.echo); n > 0 {
		start = v.echo[n-1].from + 1
	}
	if v.hasBox {
		end = v.box.from
	}
	var cur *Limit
	// next: the row is the first one under the banner; armed: that row
	// says it continues by itself; clean: nothing but limit rows under it.
	next, armed, clean := false, false, false
	for i := start; i < end; i++ {
		row, t := v.rows[i], strings.TrimSpace(v.rows[i])
		if t == "" {
			continue
		}
		if m := claudeHit.FindStringSubmatch(row); m != nil {
			last := i // wrapped under the text, past "  ⎿  "
			for last+1 < end && claudeWrapped.MatchString(v.rows[last+1]) {
				last++
			}
			if v.typed(i) && v.echo[len(v.echo)-1].to != last {
				continue // inside the typed text
			}
			text := strings.Join(append([]string{m[1]}, trimAll(v.rows[i+1:last+1])...), " ")
			i = last
			at, _ := resetTime(text, now)
			cur, out.over = &Limit{Kind: LimitReached, Reset: at, Text: text}, false
			next, armed, clean = true, false, true
			continue
		}
		switch {
		case v.typed(i):
		case claudeOver.MatchString(t):
			cur, out.over = nil, true
		case cur == nil:
		case claudeArmed.MatchString(t):
			cur.AutoResume, armed = true, armed || next
		case claudeNoAuto.MatchString(t):
			cur.AutoResume = false
		case strings.HasPrefix(row, "        "): // right-aligned above the box: the notice, the effort gauge
		default:
			clean = false
		}
		next = false
	}
	footer, auto := "", false
	for i := v.box.to + 1; v.hasBox && i < len(v.rows); i++ {
		if m := claudeFooter.FindStringSubmatch(v.rows[i]); m != nil {
			footer = m[1]
		}
		auto = auto || claudeAuto.MatchString(v.rows[i])
	}
	switch {
	case out.over:
	case footer != "":
		l := Limit{Kind: LimitReached, AutoResume: auto, Text: footer}
		if cur != nil {
			l.Text, l.Reset, l.AutoResume = cur.Text, cur.Reset, auto || cur.AutoResume
		}
		if l.Reset.IsZero() {
			l.Reset, _ = resetTime(footer, now)
		}
		out.reached = &l
	case cur != nil && (armed || clean && !v.busy() && v.inputEmpty()):
		out.reached = cur
	}
	for i := max(end-3, start); v.hasBox && i < end; i++ {
		if m := claudeNear.FindStringIndex(v.rows[i]); m != nil && !v.typed(i) && strings.HasPrefix(v.rows[i], "        ") {
			text := strings.TrimSpace(v.rows[i])
			at, _ := resetTime(text, now)
			out.approaching = &Limit{Kind: LimitApproaching, Reset: at, Text: text}
		}
	}
	return out
}

func trimAll(rows []string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.TrimSpace(r)
	}
	return out
}

// Claude Code's hooks, status line and settings.

// Kinds of Claude Code hook message: the KIND of `warden hook KIND`.
const (
	// KindClaudeStop is Claude Code's Stop hook: the last answer of a turn.
	KindClaudeStop = "claude-stop"
	// KindClaudeStopFailure is Claude Code's StopFailure hook: the turn
	// ended on an API error (rate_limit, billing_error, …).
	KindClaudeStopFailure = "claude-stop-failure"
	// KindClaudeStatus is Claude Code's status line command: the context gauge.
	KindClaudeStatus = "claude-status"
	// KindClaudePermission is Claude Code's PermissionRequest hook: fired as
	// the permission dialog is drawn (default permission mode).
	KindClaudePermission = "claude-permission-request"
	// KindClaudeNotification is Claude Code's Notification hook:
	// permission_prompt, elicitation_dialog, agent_needs_input, idle_prompt.
	KindClaudeNotification = "claude-notification"
)

// ClaudeSettingsFile is the name of the settings file passed to Claude Code
// with --settings, inside Options.Dir.
const ClaudeSettingsFile = "claude-settings.json"

// claudeSettings writes the --settings file. Claude Code merges a --settings
// file over the user's, project and local settings ("flagSettings", below
// only managed policy): hook lists from every source all run, so the user's
// own hooks keep working, but statusLine is one value and ours wins. When the
// user has a statusLine command of their own (in CLAUDE_CONFIG_DIR or
// ~/.claude settings.json), ours runs it with the same input and shows its
// first line followed by warden's gauge, so the user loses nothing.
func claudeSettings(o Options, files map[string][]byte) ([]string, error) {
	var statusArgs []string
	if cmd := o.userClaudeStatusLine(); cmd != "" {
		statusArgs = []string{cmd}
	}
	hook := func(kind string) []any {
		return []any{map[string]any{"hooks": []any{map[string]any{
			"type": "command", "command": o.hookCommand(kind), "timeout": 5}}}}
	}
	settings := map[string]any{
		"hooks": map[string]any{
			"Stop":              hook(KindClaudeStop),
			"StopFailure":       hook(KindClaudeStopFailure),
			"PermissionRequest": hook(KindClaudePermission),
			"Notification":      hook(KindClaudeNotification),
		},
		"statusLine": map[string]any{
			"type": "command", "command": o.hookCommand(KindClaudeStatus, statusArgs...), "padding": 0},
	}
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode claude settings: %w", err)
	}
	path := filepath.Join(o.Dir, ClaudeSettingsFile)
	files[path] = append(b, '\n')
	args := []string{"--settings", path}
	if o.Protocol != "" {
		args = append(args, "--append-system-prompt", o.Protocol)
	}
	return args, nil
}

// userClaudeStatusLine returns the user's own statusLine command, "" when
// there is none or the settings file cannot be read.
func (o Options) userClaudeStatusLine() string {
	dir := o.env("CLAUDE_CONFIG_DIR")
	if dir == "" {
		home := o.env("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".claude")
	}
	b, err := o.readFile(filepath.Join(dir, "settings.json"))
	if err != nil {
		return ""
	}
	var s struct {
		StatusLine struct {
			Type    string `json:"type"`
			Command string `json:"command"`
		} `json:"statusLine"`
	}
	if json.Unmarshal(b, &s) != nil || s.StatusLine.Type != "command" {
		return ""
	}
	return s.StatusLine.Command
}

// ClaudeStop returns last_assistant_message of a Claude Code Stop (or
// StopFailure) hook payload, "" when it is missing or the JSON is bad.
func ClaudeStop(payload []byte) (text string) {
	var p struct {
		LastAssistantMessage string `json:"last_assistant_message"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return ""
	}
	return p.LastAssistantMessage
}

// ClaudeStopFailure returns the error class of a StopFailure hook payload
// ("rate_limit", "billing_error", "authentication_failed", …) and its
// details; ok is false when the payload is not one.
func ClaudeStopFailure(payload []byte) (errorKind, details string, ok bool) {
	var p struct {
		Event   string          `json:"hook_event_name"`
		Error   string          `json:"error"`
		Details json.RawMessage `json:"error_details"`
	}
	if json.Unmarshal(payload, &p) != nil || p.Error == "" {
		return "", "", false
	}
	details = string(p.Details)
	var s string
	if json.Unmarshal(p.Details, &s) == nil {
		details = s
	}
	return p.Error, details, true
}

// ClaudeStatusLine returns context_window.used_percentage of a status line
// payload; ok is false before the first response (the field is null then).
func ClaudeStatusLine(payload []byte) (percent float64, ok bool) {
	var p struct {
		ContextWindow struct {
			UsedPercentage *float64 `json:"used_percentage"`
		} `json:"context_window"`
	}
	if json.Unmarshal(payload, &p) != nil || p.ContextWindow.UsedPercentage == nil {
		return 0, false
	}
	return *p.ContextWindow.UsedPercentage, true
}

// ClaudeRateLimits returns the optional rate_limits of a status line
// payload (subscription logins only), nil when absent.
func ClaudeRateLimits(payload []byte) []RateLimit {
	var p struct {
		RateLimits map[string]struct {
			UsedPercentage float64 `json:"used_percentage"`
			ResetsAt       int64   `json:"resets_at"`
		} `json:"rate_limits"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return nil
	}
	var out []RateLimit
	for _, w := range []string{"five_hour", "seven_day"} {
		if r, ok := p.RateLimits[w]; ok {
			out = append(out, RateLimit{Window: w, UsedPercent: r.UsedPercentage, ResetsAt: r.ResetsAt})
		}
	}
	return out
}

// claudeHook reads a message of Claude Code's hooks and status line.
func claudeHook(kind string, payload []byte) HookFacts {
	var f HookFacts
	switch kind {
	case KindClaudeStop:
		f.Answer, f.HasAnswer = ClaudeStop(payload), true
	case KindClaudeStopFailure:
		kind, _, ok := ClaudeStopFailure(payload)
		f.LimitStop = ok && kind == "rate_limit"
	case KindClaudeStatus:
		f.Gauge, f.HasGauge = ClaudeStatusLine(payload)
		f.Limits = ClaudeRateLimits(payload)
		f.CostUSD, f.HasCost = claudeStatusCost(payload)
	case KindClaudePermission, KindClaudeNotification:
		f.Dialog = claudeWaiting(kind, payload)
		var p waitingPayload
		if kind == KindClaudeNotification && json.Unmarshal(payload, &p) == nil {
			f.LimitResumed = p.Type == "quota_auto_resume_fired"
			f.NoAutoResume = p.Type == "quota_auto_resume_disabled" || p.Type == "quota_auto_resume_stale"
		}
	}
	if f.UsageFile = transcriptPath(payload); f.UsageFile != "" {
		f.UsageCLI = "claude"
	}
	return f
}

// claudeWaiting reads PermissionRequest (the default-mode dialog, drawn
// 150 ms later; it does not fire in auto mode) and Notification
// (permission_prompt about 6 s after a dialog, elicitation_dialog,
// agent_needs_input for the auto-mode explainer). idle_prompt is not a
// dialog: a turn ended and the CLI waits at its prompt.
func claudeWaiting(kind string, payload []byte) *Dialog {
	var p waitingPayload
	if json.Unmarshal(payload, &p) != nil {
		return nil
	}
	if kind == KindClaudePermission {
		what := firstOf(p.ToolInput.Command, p.ToolInput.FilePath, p.ToolInput.Description)
		return &Dialog{Kind: DialogPermission, Text: joinNonEmpty(": ", "approve "+firstOf(p.ToolName, "a tool"), what)}
	}
	switch p.Type {
	case "permission_prompt":
		return &Dialog{Kind: DialogPermission, Text: p.Message}
	case "elicitation_dialog":
		return &Dialog{Kind: DialogQuestion, Text: p.Message}
	case "agent_needs_input":
		if claudeAutoOfferHook.MatchString(p.Message) {
			return &Dialog{Kind: DialogPermission, Text: p.Message, Question: QuestionOf(p.Message)}
		}
		return &Dialog{Kind: DialogOther, Text: p.Message}
	}
	return nil
}
