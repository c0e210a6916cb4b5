package profile

import (
	"cmp"
	"slices"
	"strings"
)

// RateLimit is one usage window a CLI reports in structured form.
type RateLimit struct {
	Window      string  // "five_hour", "seven_day", "primary", "secondary"
	UsedPercent float64 // 0..100
	ResetsAt    int64   // Unix seconds, 0 when unknown
}

// HookFacts is what one message from a CLI's hooks, status line or notify
// program says.
type HookFacts struct {
	// Answer is the text of the answer of the turn that ended (HasAnswer).
	Answer    string
	HasAnswer bool
	// Gauge is the context window's fill in percent (HasGauge).
	Gauge    float64
	HasGauge bool
	// Limits are the usage windows the CLI reports; LimitStop: the turn
	// ended on a rate limit.
	Limits    []RateLimit
	LimitStop bool
	// LimitResumed: the CLI continued by itself after a usage limit's
	// reset (Claude Code's Notification quota_auto_resume_fired);
	// NoAutoResume: it says it will not, so something must be typed after
	// the reset (quota_auto_resume_disabled, quota_auto_resume_stale).
	LimitResumed, NoAutoResume bool
	// Dialog: the CLI waits on a person.
	Dialog *Dialog
	// UsageFile is the CLI's own file of the session's tokens that the
	// message names (Claude Code's and Gemini CLI's transcript_path);
	// UsageThread the thread whose rollout file holds them (Codex's
	// notify); UsageCLI the CLI that writes it, by its profile name.
	UsageFile, UsageThread, UsageCLI string
	// CostUSD is the CLI's own price of the session so far, in dollars
	// (HasCost: Claude Code's status line cost.total_cost_usd).
	CostUSD float64
	HasCost bool
}

// Hook reads a message of kind from the profile's CLI; a kind of another
// CLI says nothing.
func (p *Profile) Hook(kind string, payload []byte) HookFacts {
	if p.cli.Hook == nil || !slices.Contains(p.cli.Kinds, kind) {
		return HookFacts{}
	}
	return p.cli.Hook(kind, payload)
}

// ReadHook reads a hook message by its kind, with the CLI that sends that
// kind (each kind belongs to one CLI); an unknown kind says nothing.
func ReadHook(kind string, payload []byte) HookFacts {
	if c := owner(kind); c != nil {
		return c.Hook(kind, payload)
	}
	return HookFacts{}
}

// Sends reports whether an agent of profile sends hook messages of kind: a
// CLI its own kinds, a plain program (a wrapper of anything) any.
func Sends(profile, kind string) bool {
	c := lookup(cmp.Or(profile, PlainName))
	if c == nil {
		return false
	}
	return c.anyKind || slices.Contains(c.Kinds, kind)
}

// HookKinds lists every kind `warden hook` accepts, from every CLI, in the
// order of Names.
func HookKinds() []string {
	var out []string
	for _, c := range CLIs() {
		out = append(out, c.Kinds...)
	}
	return out
}

// HookCall is how `warden hook KIND [ARG…]` takes a message of a kind whose
// payload is not just JSON on stdin, or whose CLI reads something back. A
// CLI names its own in CLI.Calls; the zero HookCall reads stdin, sends the
// payload and prints nothing.
type HookCall struct {
	// ArgPayload: the payload is the last argument, not stdin; the
	// arguments before it are the user's own program, which `warden hook`
	// starts, detached, with the same last argument (Codex's notify).
	ArgPayload bool
	// StatusLine reads the context gauge from the payload: `warden hook`
	// prints "warden: N% context" on stdout, after the first line of the
	// user's own status line command, its first argument, run on the same
	// payload (Claude Code's statusLine).
	StatusLine func(payload []byte) (percent float64, ok bool)
	// Then returns one more message to send after the payload, found in
	// the CLI's own files with the hook's environment (getenv); kind "":
	// none. It returns within a few hundred milliseconds (Codex: the
	// session's newest token_count, from its rollout file).
	Then func(payload []byte, getenv func(string) string) (kind string, then []byte, err error)
}

// HookCallOf returns how `warden hook` takes a message of kind; known is
// false for a kind no CLI sends.
func HookCallOf(kind string) (call HookCall, known bool) {
	c := owner(kind)
	if c == nil {
		return HookCall{}, false
	}
	return c.Calls[kind], true
}

// waitingPayload is the part of a dialog hook's payload warden reads.
type waitingPayload struct {
	Type      string `json:"notification_type"`
	Message   string `json:"message"`
	ToolName  string `json:"tool_name"`
	ToolInput struct {
		Command     string `json:"command"`
		Description string `json:"description"`
		FilePath    string `json:"file_path"`
	} `json:"tool_input"`
	Details struct {
		Title   string `json:"title"`
		Command string `json:"command"`
	} `json:"details"`
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}
