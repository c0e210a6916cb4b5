// Package hooks reads what the agent CLIs hand to their own hooks, status
// line and notify programs (pure parsers, one per payload), and generates the
// per-agent settings that make each CLI call `warden hook KIND` without
// touching the user's own settings or login.
//
// Payload shapes were captured from Claude Code 2.1.330, Codex CLI 0.169.0 and
// Gemini CLI 0.61.0 (testdata/, see testdata/README.md).
package hooks

import (
	"encoding/json"
	"strings"
)

// Kinds of hook message, the KIND of `warden hook KIND`.
const (
	// KindClaudeStop is Claude Code's Stop hook: the last answer of a turn.
	KindClaudeStop = "claude-stop"
	// KindClaudeStopFailure is Claude Code's StopFailure hook: the turn
	// ended on an API error (rate_limit, billing_error, …).
	KindClaudeStopFailure = "claude-stop-failure"
	// KindClaudeStatus is Claude Code's status line command: the context gauge.
	KindClaudeStatus = "claude-status"
	// KindCodexNotify is Codex's notify program (agent-turn-complete).
	KindCodexNotify = "codex-notify"
	// KindCodexTokenCount is not called by Codex: `warden hook codex-notify`
	// sends it after the notify message, holding the newest token_count line
	// of the session's rollout file.
	KindCodexTokenCount = "codex-token-count"
	// KindGeminiAfterAgent is Gemini CLI's AfterAgent hook: the answer.
	KindGeminiAfterAgent = "gemini-after-agent"
	// KindGeminiAfterModel is Gemini CLI's AfterModel hook (per streamed chunk).
	KindGeminiAfterModel = "gemini-after-model"
)

// Kinds lists every kind `warden hook` accepts from a CLI.
var Kinds = []string{KindClaudeStop, KindClaudeStopFailure, KindClaudeStatus, KindCodexNotify,
	KindGeminiAfterAgent, KindGeminiAfterModel, KindClaudePermission, KindClaudeNotification, KindGeminiNotification}

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

// RateLimit is one usage window a CLI reports in structured form.
type RateLimit struct {
	Window      string  // "five_hour", "seven_day", "primary", "secondary"
	UsedPercent float64 // 0..100
	ResetsAt    int64   // Unix seconds, 0 when unknown
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
