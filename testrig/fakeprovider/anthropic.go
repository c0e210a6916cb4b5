package fakeprovider

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// anthropicBody is the part of a Messages API request the fake reads.
type anthropicBody struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	OutputConfig struct {
		Format struct {
			Type   string         `json:"type"`
			Schema map[string]any `json:"schema"`
		} `json:"format"`
	} `json:"output_config"`
}

// lastUser returns the text and the tool results of the last user message
// (the last entry can have role system: Claude's environment block). Its
// content is a string or a list of blocks.
func (b anthropicBody) lastUser() (string, []ToolResult) {
	for i := len(b.Messages) - 1; i >= 0; i-- {
		m := b.Messages[i]
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			return s, nil
		}
		var blocks []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		_ = json.Unmarshal(m.Content, &blocks)
		var parts []string
		var results []ToolResult
		for _, bl := range blocks {
			switch bl.Type {
			case "text":
				parts = append(parts, bl.Text)
			case "tool_result":
				results = append(results, ToolResult{CallID: bl.ToolUseID, Text: toolText(bl.Content), IsError: bl.IsError})
			}
		}
		return strings.Join(parts, "\n"), results
	}
	return "", nil
}

func (s *Server) serveAnthropic(w http.ResponseWriter, r *http.Request, raw []byte, req Request) {
	switch {
	case req.Path == "/" || req.Path == "/api/hello":
		req.Answered = "static"
		s.record(req)
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
		return
	case strings.HasSuffix(req.Path, "/count_tokens"):
		req.Answered = "static"
		s.record(req)
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": len(raw)/4 + 1})
		return
	}
	var body anthropicBody
	if err := json.Unmarshal(raw, &body); err != nil {
		s.logger.Warn("decode anthropic request", "path", req.Path, "error", err)
		writeJSON(w, http.StatusBadRequest, anthropicError("invalid_request_error", "fakeprovider: bad JSON"))
		return
	}
	req.Model, req.Stream = body.Model, body.Stream
	req.Prompt, req.ToolResults = body.lastUser()
	req.Side = body.OutputConfig.Format.Type == "json_schema"
	a := s.reply(&req, body.OutputConfig.Format.Schema)
	if a.Tool != nil {
		req.ToolCallID = s.newID("toolu_fake")
	}
	s.record(req)
	// Claude Code keeps the request-id as the transcript's requestId.
	w.Header().Set("request-id", s.newID("req_fake"))
	if a.Limit != nil {
		s.anthropicLimit(w, *a.Limit, req.At)
		return
	}
	s.anthropicQuota(w, req.Account, req.At)
	u := req.Served
	id := s.newID("msg_fake")
	stop := "end_turn"
	var content []any
	if a.Text != "" || a.Tool == nil {
		content = append(content, map[string]any{"type": "text", "text": a.Text})
	}
	if a.Tool != nil {
		stop = "tool_use"
		name, input := "Bash", a.Tool.toolArgs()
		if a.Tool.Name != "" {
			name, input = a.Tool.Name, a.Tool.Input
		}
		content = append(content, map[string]any{"type": "tool_use", "id": req.ToolCallID, "name": name, "input": input})
	}
	// input_tokens is the uncached part: the prompt is input_tokens +
	// cache_creation_input_tokens + cache_read_input_tokens.
	usageWith := func(out int) map[string]any {
		return map[string]any{"input_tokens": u.Input - u.CachedInput - u.CacheWrite,
			"cache_creation_input_tokens": u.CacheWrite, "cache_read_input_tokens": u.CachedInput, "output_tokens": out}
	}
	usageEnd := usageWith(u.Output)
	if !body.Stream {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": body.Model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usageEnd,
		})
		return
	}
	e := s.startSSE(w, r)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": body.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usageWith(1)}})
	for i, block := range content {
		if !s.anthropicBlock(e, i, block.(map[string]any), i == 0) {
			return
		}
	}
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": usageEnd})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

// anthropicBlock streams one content block: a text block as text_delta
// chunks, a tool_use block empty at its start with its input in
// input_json_delta chunks, as the API does. False if the client went away.
func (s *Server) anthropicBlock(e *sse, index int, block map[string]any, first bool) bool {
	var start map[string]any
	var deltas []map[string]any
	if block["type"] == "tool_use" {
		start = map[string]any{"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}
		for _, c := range chunks(string(mustJSON(block["input"])), s.script.ChunkRunes) {
			deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": c})
		}
	} else {
		start = map[string]any{"type": "text", "text": ""}
		for _, c := range chunks(block["text"].(string), s.script.ChunkRunes) {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": c})
		}
	}
	e.event("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": start})
	if first {
		e.event("ping", map[string]any{"type": "ping"})
	}
	for _, d := range deltas {
		if !e.pause() {
			return false
		}
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": d})
	}
	e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
	return true
}

func anthropicError(kind, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg},
		"request_id": "req_fake"}
}

// anthropicLimit answers 429 the way the API does: the unified
// (subscription) headers say which window was rejected and when it resets;
// a plain rate limit carries retry-after and the per-minute headers.
func (s *Server) anthropicLimit(w http.ResponseWriter, l Limit, now time.Time) {
	reset := l.resetAt(now)
	h := w.Header()
	h.Set("retry-after", strconv.FormatInt(secondsUntil(now, reset), 10))
	if l.Kind == UsageLimit {
		epoch := strconv.FormatInt(reset.Unix(), 10)
		h.Set("anthropic-ratelimit-unified-status", "rejected")
		h.Set("anthropic-ratelimit-unified-reset", epoch)
		h.Set("anthropic-ratelimit-unified-representative-claim", "five_hour")
		h.Set("anthropic-ratelimit-unified-5h-status", "rejected")
		h.Set("anthropic-ratelimit-unified-5h-reset", epoch)
		h.Set("anthropic-ratelimit-unified-5h-utilization", "1.0")
		h.Set("anthropic-ratelimit-unified-7d-status", "allowed")
		h.Set("anthropic-ratelimit-unified-7d-reset", strconv.FormatInt(now.Add(5*24*time.Hour).Unix(), 10))
		h.Set("anthropic-ratelimit-unified-7d-utilization", "0.4")
		h.Set("x-should-retry", "false")
		writeJSON(w, http.StatusTooManyRequests, anthropicError("rate_limit_error",
			"This request would exceed your account's rate limit. Please try again later."))
		return
	}
	h.Set("anthropic-ratelimit-requests-limit", "50")
	h.Set("anthropic-ratelimit-requests-remaining", "0")
	h.Set("anthropic-ratelimit-requests-reset", reset.UTC().Format(time.RFC3339))
	h.Set("x-should-retry", "true")
	writeJSON(w, http.StatusTooManyRequests, anthropicError("rate_limit_error",
		"This request would exceed the rate limit for your organization of 50 requests per minute. "+
			"For details, refer to: https://docs.claude.com/en/api/rate-limits."))
}

// anthropicQuota puts the account's quota on a successful answer as the
// unified headers: status allowed (allowed_warning from 90 %, with the
// threshold surpassed), the representative claim, each window's
// utilization (0-1), reset (epoch) and status.
func (s *Server) anthropicQuota(w http.ResponseWriter, account string, now time.Time) {
	q, ok := s.quota(account)
	if !ok {
		return
	}
	h := w.Header()
	weeklyReset := q.WeeklyResetAt
	if weeklyReset.IsZero() {
		weeklyReset = now.Add(5 * 24 * time.Hour)
	}
	status := "allowed"
	if q.UsedPercent >= 90 {
		status = "allowed_warning"
		h.Set("anthropic-ratelimit-unified-5h-surpassed-threshold", "0.9")
	}
	epoch := strconv.FormatInt(q.ResetAt.Unix(), 10)
	h.Set("anthropic-ratelimit-unified-status", status)
	h.Set("anthropic-ratelimit-unified-reset", epoch)
	h.Set("anthropic-ratelimit-unified-representative-claim", "five_hour")
	h.Set("anthropic-ratelimit-unified-5h-status", status)
	h.Set("anthropic-ratelimit-unified-5h-reset", epoch)
	h.Set("anthropic-ratelimit-unified-5h-utilization", strconv.FormatFloat(q.UsedPercent/100, 'f', -1, 64))
	h.Set("anthropic-ratelimit-unified-7d-status", "allowed")
	h.Set("anthropic-ratelimit-unified-7d-reset", strconv.FormatInt(weeklyReset.Unix(), 10))
	h.Set("anthropic-ratelimit-unified-7d-utilization", strconv.FormatFloat(q.WeeklyPercent/100, 'f', -1, 64))
}
