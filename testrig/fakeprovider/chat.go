package fakeprovider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// chatBody is the part of an OpenAI Chat Completions request the fake
// reads (OpenCode through @ai-sdk/openai-compatible, Qwen Code through the
// openai package).
type chatBody struct {
	Model         string        `json:"model"`
	Stream        bool          `json:"stream"`
	Messages      []chatMessage `json:"messages"`
	Tools         []chatTool    `json:"tools"`
	ToolChoice    any           `json:"tool_choice"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ResponseFormat struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Schema map[string]any `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

type chatMessage struct {
	Role       string            `json:"role"`
	Content    json.RawMessage   `json:"content"`
	ToolCallID string            `json:"tool_call_id"`
	ToolCalls  []json.RawMessage `json:"tool_calls"`
}

type chatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name       string         `json:"name"`
		Parameters map[string]any `json:"parameters"`
	} `json:"function"`
}

// has reports whether the tool's parameters have property name.
func (t chatTool) has(name string) bool {
	props, _ := t.Function.Parameters["properties"].(map[string]any)
	_, ok := props[name]
	return ok
}

// Side calls a CLI makes on its own, answered without a scripted answer.
const (
	sideSchema = "schema" // response_format json_schema
	sideTitle  = "title"  // OpenCode's title generator: plain text, no tools
	sideForced = "forced" // one tool the model must call (Qwen Code's auto-mode classifier, respond_in_schema)
)

// side says which side call the request is, "" for the CLI's own turn.
func (b chatBody) side() string {
	switch {
	case b.ResponseFormat.Type == "json_schema":
		return sideSchema
	case b.ToolChoice == "required" && len(b.Tools) == 1:
		return sideForced
	case len(b.Tools) == 0 && len(b.Messages) > 0 && b.Messages[0].Role == "system" &&
		strings.HasPrefix(userText(b.Messages[0].Content), "You are a title generator"):
		return sideTitle
	}
	return ""
}

// newestInput returns the text of the last user message and the tool
// results after the model's last message; the prompt is "" when the newest
// input only brings tool results back.
func (b chatBody) newestInput() (string, []ToolResult) {
	from := 0
	for i := len(b.Messages) - 1; i >= 0; i-- {
		if b.Messages[i].Role == "assistant" {
			from = i + 1
			break
		}
	}
	prompt := ""
	var results []ToolResult
	for _, m := range b.Messages[from:] {
		switch m.Role {
		case "tool":
			results = append(results, ToolResult{CallID: m.ToolCallID, Text: toolText(m.Content)})
		case "user":
			prompt = userText(m.Content)
		}
	}
	return prompt, results
}

// shellCall returns the name and JSON arguments of a call to the shell tool
// the request declares: one with a command property, OpenCode's bash
// ({command, description}) and Qwen Code's run_shell_command ({command,
// description, is_background}) preferred. Without one it calls bash.
func (b chatBody) shellCall(t ToolCall) (name, args string) {
	name = "bash"
	for _, tl := range b.Tools {
		if !tl.has("command") {
			continue
		}
		n := tl.Function.Name
		if n == "bash" || n == "run_shell_command" || n == "shell" {
			name = n
			break
		}
		name = n
	}
	a := t.toolArgs()
	for _, tl := range b.Tools {
		if tl.Function.Name == name {
			if tl.has("is_background") {
				a["is_background"] = false
			}
		}
	}
	return name, string(mustJSON(a))
}

// isChat reports whether path is the Chat Completions endpoint.
func isChat(path string) bool {
	return strings.HasSuffix(path, "/chat/completions")
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request, raw []byte, req Request) {
	var body chatBody
	if err := json.Unmarshal(raw, &body); err != nil {
		s.logger.Warn("decode chat request", "path", req.Path, "error", err)
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
			"type": "invalid_request_error", "message": "fakeprovider: bad JSON"}})
		return
	}
	req.Model, req.Stream = body.Model, body.Stream
	req.Prompt, req.ToolResults = body.newestInput()
	side := body.side()
	req.Side = side != ""
	schema := body.ResponseFormat.JSONSchema.Schema
	if side == sideForced {
		schema = body.Tools[0].Function.Parameters
	}
	a := s.reply(&req, schema)
	var forced map[string]any
	if a.Limit == nil {
		switch side {
		case sideTitle:
			a.Text = "Fake title"
		case sideForced:
			req.ToolCallID = s.newID("call_fake")
			forced = map[string]any{"id": req.ToolCallID, "type": "function", "function": map[string]any{
				"name": body.Tools[0].Function.Name, "arguments": a.Text}}
			a.Text = ""
		}
	}
	if a.Tool != nil {
		req.ToolCallID = s.newID("call_fake")
	}
	s.record(req)
	w.Header().Set("x-request-id", s.newID("req_fake"))
	if a.Limit != nil {
		s.chatLimit(w, *a.Limit, req.At)
		return
	}
	u := req.Served
	usage := map[string]any{"prompt_tokens": u.Input, "completion_tokens": u.Output, "total_tokens": u.Input + u.Output,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.CachedInput}}
	id, created := s.newID("chatcmpl-fake"), req.At.Unix()
	finish := "stop"
	call := forced
	if call != nil {
		finish = "tool_calls"
	}
	if a.Tool != nil {
		finish = "tool_calls"
		name, args := body.shellCall(*a.Tool)
		call = map[string]any{"id": req.ToolCallID, "type": "function", "function": map[string]any{"name": name, "arguments": args}}
	}
	if !body.Stream {
		msg := map[string]any{"role": "assistant", "content": a.Text}
		if call != nil {
			msg["tool_calls"] = []any{call}
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": body.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	e := s.startSSE(w, r)
	chunk := func(delta map[string]any, finish any) {
		e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": body.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if a.Text != "" {
		for _, c := range chunks(a.Text, s.script.ChunkRunes) {
			if !e.pause() {
				return
			}
			chunk(map[string]any{"content": c}, nil)
		}
	}
	if call != nil {
		fn := call["function"].(map[string]any)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": call["id"], "type": "function",
			"function": map[string]any{"name": fn["name"], "arguments": ""}}}}, nil)
		for _, c := range chunks(fn["arguments"].(string), s.script.ChunkRunes) {
			if !e.pause() {
				return
			}
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": c}}}}, nil)
		}
	}
	chunk(map[string]any{}, finish)
	if body.StreamOptions.IncludeUsage {
		e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": body.Model,
			"choices": []any{}, "usage": usage})
	}
	_, _ = w.Write([]byte("data: [DONE]\n\n"))
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// chatLimit answers 429 in the OpenAI platform's shapes: a used-up quota is
// insufficient_quota with the reset in retry-after, x-ratelimit-reset-requests
// and the message's words, a per-minute limit rate_limit_exceeded as
// openaiLimit writes it.
func (s *Server) chatLimit(w http.ResponseWriter, l Limit, now time.Time) {
	if l.Kind != UsageLimit {
		s.openaiLimit(w, Limit{Kind: RateLimit, ResetIn: l.ResetIn, ResetAt: l.ResetAt}, now)
		return
	}
	reset := l.resetAt(now)
	secs := secondsUntil(now, reset)
	h := w.Header()
	h.Set("retry-after", strconv.FormatInt(secs, 10))
	h.Set("x-ratelimit-reset-requests", fmt.Sprintf("%ds", secs))
	// OpenAI's own message names no reset; a coding plan's quota says when
	// it resets, and Qwen Code fails fast (no retries) only on a message
	// with "quota", "exceeded" and "will reset" (its quotaErrorDetection).
	writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{
		"message": "You exceeded your current quota, please check your plan and billing details. " +
			"Your quota will reset at " + reset.UTC().Format("3:04 PM") + " UTC.",
		"type": "insufficient_quota", "param": nil, "code": "insufficient_quota"}})
}
