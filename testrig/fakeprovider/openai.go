package fakeprovider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// openaiBody is the part of a Responses API request the fake reads.
type openaiBody struct {
	Model  string          `json:"model"`
	Stream bool            `json:"stream"`
	Input  json.RawMessage `json:"input"`
	Tools  []openaiTool    `json:"tools"`
	Text   struct {
		Format struct {
			Type   string         `json:"type"`
			Schema map[string]any `json:"schema"`
		} `json:"format"`
	} `json:"text"`
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
	req.Model, req.Stream = body.Model, body.Stream
	req.Prompt, req.ToolResults = body.newestInput()
	req.Side = body.Text.Format.Type == "json_schema"
	a := s.reply(&req, body.Text.Format.Schema)
	if a.Tool != nil {
		req.ToolCallID = s.newID("call_fake")
	}
	s.record(req)
	w.Header().Set("x-request-id", s.newID("req_fake"))
	if a.Limit != nil {
		s.openaiLimit(w, *a.Limit, req.At)
		return
	}
	s.codexQuota(w, req.Account, req.At)
	u := req.Served
	respID := s.newID("resp_fake")
	created := req.At.Unix()
	response := func(status string, output []any, withUsage bool) map[string]any {
		resp := map[string]any{"id": respID, "object": "response", "created_at": created,
			"status": status, "model": body.Model, "output": output}
		if withUsage {
			// input_tokens is the whole prompt, cached_tokens the part of it
			// read from the cache.
			resp["usage"] = map[string]any{"input_tokens": u.Input,
				"input_tokens_details": map[string]any{"cached_tokens": u.CachedInput}, "output_tokens": u.Output,
				"output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": u.Input + u.Output}
		}
		return resp
	}
	var items []map[string]any
	if a.Text != "" || a.Tool == nil {
		items = append(items, map[string]any{"type": "message", "id": s.newID("msg_fake"), "role": "assistant",
			"status": "completed", "content": []any{map[string]any{"type": "output_text", "text": a.Text, "annotations": []any{}}}})
	}
	if a.Tool != nil {
		name, args := body.shellCall(*a.Tool)
		items = append(items, map[string]any{"type": "function_call", "id": s.newID("fc_fake"), "call_id": req.ToolCallID,
			"name": name, "arguments": args, "status": "completed"})
	}
	output := make([]any, len(items))
	for i, it := range items {
		output[i] = it
	}
	if !body.Stream {
		writeJSON(w, http.StatusOK, response("completed", output, true))
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
	for i, it := range items {
		if !s.openaiItem(e, ev, i, it) {
			return
		}
	}
	ev("response.completed", map[string]any{"response": response("completed", output, true)})
}

// openaiItem streams one output item: a message as output_text deltas, a
// function call as function_call_arguments deltas, each between
// output_item.added (in progress, empty) and output_item.done (complete).
// False if the client went away.
func (s *Server) openaiItem(e *sse, ev func(string, map[string]any), index int, item map[string]any) bool {
	id := item["id"]
	started := map[string]any{}
	for k, v := range item {
		started[k] = v
	}
	started["status"] = "in_progress"
	if item["type"] == "function_call" {
		started["arguments"] = ""
		ev("response.output_item.added", map[string]any{"output_index": index, "item": started})
		args := item["arguments"].(string)
		for _, c := range chunks(args, s.script.ChunkRunes) {
			if !e.pause() {
				return false
			}
			ev("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": index, "delta": c})
		}
		ev("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": index, "arguments": args})
		ev("response.output_item.done", map[string]any{"output_index": index, "item": item})
		return true
	}
	text := item["content"].([]any)[0].(map[string]any)["text"].(string)
	started["content"] = []any{}
	ev("response.output_item.added", map[string]any{"output_index": index, "item": started})
	ev("response.content_part.added", map[string]any{"item_id": id, "output_index": index,
		"content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
	for _, c := range chunks(text, s.script.ChunkRunes) {
		if !e.pause() {
			return false
		}
		ev("response.output_text.delta", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "delta": c})
	}
	ev("response.output_text.done", map[string]any{"item_id": id, "output_index": index, "content_index": 0, "text": text})
	ev("response.output_item.done", map[string]any{"output_index": index, "item": item})
	return true
}

// openaiLimit answers 429 as the Codex backend does for a used-up plan
// (usage_limit_reached with plan_type and resets_at, the x-codex-* window
// headers; codex-rs/codex-api/src/api_bridge.rs reads resets_at, not the
// older resets_in_seconds) or as the platform API does for a per-minute
// limit (rate_limit_exceeded).
func (s *Server) openaiLimit(w http.ResponseWriter, l Limit, now time.Time) {
	reset := l.resetAt(now)
	secs := secondsUntil(now, reset)
	h := w.Header()
	if l.Kind == UsageLimit {
		codexWindows(h, 100, reset, now, 40, now.Add(5*24*time.Hour))
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{
			"type": "usage_limit_reached", "message": "The usage limit has been reached",
			"plan_type": "plus", "resets_at": reset.Unix(), "resets_in_seconds": secs}})
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

// codexQuota puts the account's quota on a successful answer as the
// x-codex-* headers (codex-rs/codex-api/src/rate_limits.rs).
func (s *Server) codexQuota(w http.ResponseWriter, account string, now time.Time) {
	q, ok := s.quota(account)
	if !ok {
		return
	}
	weekly := q.WeeklyResetAt
	if weekly.IsZero() {
		weekly = now.Add(5 * 24 * time.Hour)
	}
	codexWindows(w.Header(), q.UsedPercent, q.ResetAt, now, q.WeeklyPercent, weekly)
}

// codexWindows writes the primary (5-hour) and secondary (weekly) window
// headers: used percent, window minutes, reset (epoch) and seconds to it.
func codexWindows(h http.Header, used float64, reset, now time.Time, weeklyUsed float64, weeklyReset time.Time) {
	h.Set("x-codex-primary-used-percent", strconv.FormatFloat(used, 'f', 1, 64))
	h.Set("x-codex-primary-window-minutes", "300")
	h.Set("x-codex-primary-reset-at", strconv.FormatInt(reset.Unix(), 10))
	h.Set("x-codex-primary-reset-after-seconds", strconv.FormatInt(secondsUntil(now, reset), 10))
	h.Set("x-codex-secondary-used-percent", strconv.FormatFloat(weeklyUsed, 'f', 1, 64))
	h.Set("x-codex-secondary-window-minutes", "10080")
	h.Set("x-codex-secondary-reset-at", strconv.FormatInt(weeklyReset.Unix(), 10))
	h.Set("x-codex-secondary-reset-after-seconds", strconv.FormatInt(secondsUntil(now, weeklyReset), 10))
}
