package fakeprovider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// openaiBody is the part of a Responses API request the fake reads.
type openaiBody struct {
	Model  string          `json:"model"`
	Stream bool            `json:"stream"`
	Input  json.RawMessage `json:"input"`
	Text   struct {
		Format struct {
			Type   string         `json:"type"`
			Schema map[string]any `json:"schema"`
		} `json:"format"`
	} `json:"text"`
}

// lastUserText returns the text of the last user message in input, which
// is a string or a list of items.
func (b openaiBody) lastUserText() string {
	var s string
	if json.Unmarshal(b.Input, &s) == nil {
		return s
	}
	var items []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(b.Input, &items)
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		if it.Role != "user" {
			continue
		}
		if json.Unmarshal(it.Content, &s) == nil {
			return s
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(it.Content, &parts)
		var texts []string
		for _, p := range parts {
			if p.Type == "input_text" || p.Type == "text" {
				texts = append(texts, p.Text)
			}
		}
		return strings.Join(texts, "\n")
	}
	return ""
}

func (s *Server) serveOpenAI(w http.ResponseWriter, r *http.Request, raw []byte, req Request) {
	if req.Path == "/v1/models" || req.Path == "/models" {
		req.Answered = "static"
		s.record(req)
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
		return
	}
	var body openaiBody
	if err := json.Unmarshal(raw, &body); err != nil {
		s.logger.Warn("decode openai request", "path", req.Path, "error", err)
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
			"type": "invalid_request_error", "message": "fakeprovider: bad JSON"}})
		return
	}
	req.Model, req.Stream, req.Prompt = body.Model, body.Stream, body.lastUserText()
	req.Side = body.Text.Format.Type == "json_schema"
	a := s.reply(&req, body.Text.Format.Schema)
	s.record(req)
	if a.Limit != nil {
		s.openaiLimit(w, *a.Limit)
		return
	}
	in, out := usage(a, len(raw))
	respID, msgID := s.newID("resp_fake"), s.newID("msg_fake")
	created := s.script.Clock.Now().Unix()
	item := func(text string, status string) map[string]any {
		content := []any{}
		if status == "completed" {
			content = []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}
		}
		return map[string]any{"type": "message", "id": msgID, "role": "assistant", "status": status,
			"content": content}
	}
	response := func(status string, output []any, withUsage bool) map[string]any {
		resp := map[string]any{"id": respID, "object": "response", "created_at": created,
			"status": status, "model": body.Model, "output": output}
		if withUsage {
			resp["usage"] = map[string]any{"input_tokens": in,
				"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens": out,
				"output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": in + out}
		}
		return resp
	}
	done := item(a.Text, "completed")
	if !body.Stream {
		writeJSON(w, http.StatusOK, response("completed", []any{done}, true))
		return
	}
	e := s.startSSE(w, r)
	seq := 0
	ev := func(kind string, fields map[string]any) {
		fields["type"] = kind
		fields["sequence_number"] = seq
		seq++
		e.event(kind, fields)
	}
	ev("response.created", map[string]any{"response": response("in_progress", []any{}, false)})
	ev("response.in_progress", map[string]any{"response": response("in_progress", []any{}, false)})
	ev("response.output_item.added", map[string]any{"output_index": 0, "item": item("", "in_progress")})
	ev("response.content_part.added", map[string]any{"item_id": msgID, "output_index": 0,
		"content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
	for _, c := range chunks(a.Text, s.script.ChunkRunes) {
		if !e.pause() {
			return
		}
		ev("response.output_text.delta", map[string]any{"item_id": msgID, "output_index": 0,
			"content_index": 0, "delta": c})
	}
	ev("response.output_text.done", map[string]any{"item_id": msgID, "output_index": 0,
		"content_index": 0, "text": a.Text})
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": done})
	ev("response.completed", map[string]any{"response": response("completed", []any{done}, true)})
}

// openaiLimit answers 429 as the Codex backend does for a used-up plan
// (usage_limit_reached with reset time, x-codex-* window headers) or as
// the platform API does for a per-minute limit (rate_limit_exceeded).
func (s *Server) openaiLimit(w http.ResponseWriter, l Limit) {
	now := s.script.Clock.Now()
	secs := int64(l.resetIn().Seconds())
	h := w.Header()
	h.Set("x-request-id", "req_fake")
	if l.Kind == UsageLimit {
		reset := now.Unix() + secs
		h.Set("x-codex-primary-used-percent", "100.0")
		h.Set("x-codex-primary-window-minutes", "300")
		h.Set("x-codex-primary-reset-at", strconv.FormatInt(reset, 10))
		h.Set("x-codex-primary-reset-after-seconds", strconv.FormatInt(secs, 10))
		h.Set("x-codex-secondary-used-percent", "40.0")
		h.Set("x-codex-secondary-window-minutes", "10080")
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{
			"type": "usage_limit_reached", "message": "The usage limit has been reached",
			"plan_type": "plus", "resets_at": reset, "resets_in_seconds": secs}})
		return
	}
	h.Set("retry-after", strconv.FormatInt(secs, 10))
	h.Set("x-ratelimit-limit-requests", "3")
	h.Set("x-ratelimit-remaining-requests", "0")
	h.Set("x-ratelimit-reset-requests", fmt.Sprintf("%ds", secs))
	writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{
		"message": fmt.Sprintf("Rate limit reached for requests per min (RPM): Limit 3, Used 3, "+
			"Requested 1. Please try again in %ds.", secs),
		"type": "requests", "param": nil, "code": "rate_limit_exceeded"}})
}
