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

// lastUserText returns the text of the last user message, whose content is
// a string or a list of blocks.
func (b anthropicBody) lastUserText() string {
	for i := len(b.Messages) - 1; i >= 0; i-- {
		m := b.Messages[i]
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			return s
		}
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(m.Content, &blocks)
		var parts []string
		for _, bl := range blocks {
			if bl.Type == "text" {
				parts = append(parts, bl.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
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
	req.Model, req.Stream, req.Prompt = body.Model, body.Stream, body.lastUserText()
	req.Side = body.OutputConfig.Format.Type == "json_schema"
	a := s.reply(&req, body.OutputConfig.Format.Schema)
	s.record(req)
	if a.Limit != nil {
		s.anthropicLimit(w, *a.Limit)
		return
	}
	in, out := usage(a, len(raw))
	id := s.newID("msg_fake")
	usageStart := map[string]any{"input_tokens": in, "cache_creation_input_tokens": 0,
		"cache_read_input_tokens": 0, "output_tokens": 1}
	if !body.Stream {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": body.Model,
			"content":     []any{map[string]any{"type": "text", "text": a.Text}},
			"stop_reason": "end_turn", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": in, "cache_creation_input_tokens": 0,
				"cache_read_input_tokens": 0, "output_tokens": out},
		})
		return
	}
	e := s.startSSE(w, r)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": body.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usageStart}})
	e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}})
	e.event("ping", map[string]any{"type": "ping"})
	for _, c := range chunks(a.Text, s.script.ChunkRunes) {
		if !e.pause() {
			return
		}
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": c}})
	}
	e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
		"usage": map[string]any{"input_tokens": in, "cache_creation_input_tokens": 0,
			"cache_read_input_tokens": 0, "output_tokens": out}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

func anthropicError(kind, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": msg},
		"request_id": "req_fake"}
}

// anthropicLimit answers 429 the way the API does: the unified
// (subscription) headers say which window was rejected and when it resets;
// a plain rate limit carries retry-after and the per-minute headers.
func (s *Server) anthropicLimit(w http.ResponseWriter, l Limit) {
	now := s.script.Clock.Now()
	reset := now.Add(l.resetIn())
	h := w.Header()
	h.Set("request-id", "req_fake")
	h.Set("retry-after", strconv.Itoa(int(l.resetIn().Seconds())))
	if l.Kind == UsageLimit {
		epoch := strconv.FormatInt(reset.Unix(), 10)
		h.Set("anthropic-ratelimit-unified-status", "rejected")
		h.Set("anthropic-ratelimit-unified-reset", epoch)
		h.Set("anthropic-ratelimit-unified-representative-claim", "five_hour")
		h.Set("anthropic-ratelimit-unified-5h-status", "rejected")
		h.Set("anthropic-ratelimit-unified-5h-reset", epoch)
		h.Set("anthropic-ratelimit-unified-5h-utilization", "1.0")
		h.Set("anthropic-ratelimit-unified-7d-status", "allowed")
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
