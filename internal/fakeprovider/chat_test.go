//go:build !e2e

package fakeprovider

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// chatSSE splits a Chat Completions stream into its chunks; the stream must
// end with "data: [DONE]".
func chatSSE(t *testing.T, b []byte) []event {
	t.Helper()
	done := []byte("data: [DONE]\n\n")
	if !bytes.HasSuffix(b, done) {
		t.Fatalf("stream does not end with [DONE]: %q", b[max(0, len(b)-80):])
	}
	return parseSSE(t, bytes.TrimSuffix(b, done))
}

// The tools each CLI declares, cut to what the fake reads: OpenCode's bash,
// Qwen Code's run_shell_command.
const (
	opencodeTools = `[{"type":"function","function":{"name":"read","parameters":{"type":"object","properties":{"filePath":{"type":"string"}}}}},
		{"type":"function","function":{"name":"bash","parameters":{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}}}}}]`
	qwenTools = `[{"type":"function","function":{"name":"run_shell_command","parameters":{"type":"object",
		"properties":{"command":{"type":"string"},"is_background":{"type":"boolean"},"description":{"type":"string"}}}}}]`
)

func TestChatStreamsDeltasWithUsageLast(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Text: checkpointText, InputTokens: 120000, CachedTokens: 100000, OutputTokens: 50}}, ChunkRunes: 10})
	resp, body := post(t, s.URL()+"/v1/chat/completions", `{"model":"fake-model","stream":true,"stream_options":{"include_usage":true},
		"messages":[{"role":"system","content":"You are opencode"},{"role":"user","content":"READY?"},
		{"role":"assistant","content":"READY"},{"role":"user","content":[{"type":"text","text":"CHECKPOINT REQUEST: T060"}]}],
		"tools":`+opencodeTools+`}`, map[string]string{"User-Agent": "opencode/1.18.33"})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	chunks := chatSSE(t, body)
	var text strings.Builder
	for i, c := range chunks[:len(chunks)-1] {
		if c.data["object"] != "chat.completion.chunk" || len(c.data["choices"].([]any)) != 1 {
			t.Fatalf("chunk %d = %v", i, c.data)
		}
		if d, ok := dig(c.data, "choices", 0, "delta", "content").(string); ok {
			text.WriteString(d)
		}
	}
	if text.String() != checkpointText {
		t.Errorf("streamed text = %q", text.String())
	}
	if dig(chunks[0].data, "choices", 0, "delta", "role") != "assistant" {
		t.Errorf("first chunk = %v", chunks[0].data)
	}
	if f := dig(chunks[len(chunks)-2].data, "choices", 0, "finish_reason"); f != "stop" {
		t.Errorf("finish_reason = %v", f)
	}
	last := chunks[len(chunks)-1].data
	if len(last["choices"].([]any)) != 0 || dig(last, "usage", "prompt_tokens") != 120000.0 ||
		dig(last, "usage", "completion_tokens") != 50.0 || dig(last, "usage", "prompt_tokens_details", "cached_tokens") != 100000.0 {
		t.Errorf("usage chunk = %v", last)
	}
	r := s.Requests()[0]
	if r.Provider != OpenAI || r.Prompt != "CHECKPOINT REQUEST: T060" || r.Side || r.Served.Input != 120000 {
		t.Errorf("request = %+v", r)
	}
}

func TestChatWithoutIncludeUsageSendsNoUsageChunk(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Text: "hi"}}})
	_, body := post(t, s.URL()+"/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`, nil)
	for _, c := range chatSSE(t, body) {
		if c.data["usage"] != nil {
			t.Errorf("usage sent unasked: %v", c.data)
		}
	}
	_, body = post(t, s.URL()+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"go"}]}`, nil)
	m := decode(t, body)
	if dig(m, "choices", 0, "message", "content") != "hi" || dig(m, "usage", "total_tokens") == nil {
		t.Errorf("non-streaming answer = %v", m)
	}
}

// TestChatToolCallIsTheCLIsShell: a ToolCall is a call to the shell tool the
// request declares, streamed as tool_calls deltas; the tool result comes
// back as a tool message and is matched to the call.
func TestChatToolCallIsTheCLIsShell(t *testing.T) {
	call := ToolCall{Command: "curl -s http://127.0.0.1:9/probe > fetched.txt", Description: "Fetch the probe"}
	for _, c := range []struct{ tools, name string }{{opencodeTools, "bash"}, {qwenTools, "run_shell_command"}} {
		t.Run(c.name, func(t *testing.T) {
			s := newTestServer(t, Script{Answers: []Answer{{Tool: &call}, {Text: "done"}}, ChunkRunes: 8})
			_, body := post(t, s.URL()+"/v1/chat/completions", `{"model":"m","stream":true,"tools":`+c.tools+`,
				"messages":[{"role":"user","content":"fetch it"}]}`, nil)
			chunks := chatSSE(t, body)
			var args strings.Builder
			name, id := "", ""
			for _, ch := range chunks {
				if n, ok := dig(ch.data, "choices", 0, "delta", "tool_calls", 0, "function", "name").(string); ok {
					name, id = n, dig(ch.data, "choices", 0, "delta", "tool_calls", 0, "id").(string)
				}
				if a, ok := dig(ch.data, "choices", 0, "delta", "tool_calls", 0, "function", "arguments").(string); ok {
					args.WriteString(a)
				}
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(args.String()), &got); err != nil || got["command"] != call.Command {
				t.Fatalf("arguments %q: %v", args.String(), err)
			}
			if _, bg := got["is_background"]; name != c.name || bg != (c.name == "run_shell_command") {
				t.Errorf("call %s %v", name, got)
			}
			if f := dig(chunks[len(chunks)-1].data, "choices", 0, "finish_reason"); f != "tool_calls" {
				t.Errorf("finish_reason = %v", f)
			}
			post(t, s.URL()+"/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"fetch it"},
				{"role":"assistant","content":null,"tool_calls":[{"id":"`+id+`","type":"function","function":{"name":"bash","arguments":"{}"}}]},
				{"role":"tool","tool_call_id":"`+id+`","content":"exit 7"}]}`, nil)
			res, carrier, ok := s.ResultOf(id)
			if !ok || res.Text != "exit 7" || carrier.Prompt != "" || carrier.Answered != "text" {
				t.Errorf("result %+v in %+v (found %v)", res, carrier, ok)
			}
		})
	}
}

// TestChatSideCallsUseNoAnswer: OpenCode's title call, Qwen Code's auto-mode
// classifier (one tool it must call) and a json_schema call are answered
// from what they ask for and leave the script's answers alone.
func TestChatSideCallsUseNoAnswer(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Text: "only"}}})
	_, body := post(t, s.URL()+"/v1/chat/completions", `{"model":"m","stream":true,"messages":[
		{"role":"system","content":"You are a title generator. You output ONLY a thread title."},{"role":"user","content":"hello"}]}`, nil)
	if got := dig(chatSSE(t, body)[1].data, "choices", 0, "delta", "content"); got != "Fake title" {
		t.Errorf("title = %v", got)
	}
	_, body = post(t, s.URL()+"/v1/chat/completions", `{"model":"m","stream":false,"tool_choice":"required","messages":[
		{"role":"system","content":"You are a security classifier"},{"role":"user","content":"classify"}],
		"tools":[{"type":"function","function":{"name":"respond_in_schema","parameters":{"type":"object",
		"properties":{"shouldBlock":{"type":"boolean"}},"required":["shouldBlock"]}}}]}`, nil)
	m := decode(t, body)
	if dig(m, "choices", 0, "message", "tool_calls", 0, "function", "name") != "respond_in_schema" ||
		dig(m, "choices", 0, "message", "tool_calls", 0, "function", "arguments") != `{"shouldBlock":false}` {
		t.Errorf("classifier answer = %v", m)
	}
	_, body = post(t, s.URL()+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"x"}],
		"response_format":{"type":"json_schema","json_schema":{"name":"t","schema":{"type":"object","properties":{"title":{"type":"string"}}}}}}`, nil)
	if got := dig(decode(t, body), "choices", 0, "message", "content"); got != `{"title":"fake"}` {
		t.Errorf("schema answer = %v", got)
	}
	_, body = post(t, s.URL()+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"go"}]}`, nil)
	if got := dig(decode(t, body), "choices", 0, "message", "content"); got != "only" {
		t.Errorf("main answer = %v", got)
	}
	if main := s.Ledger().Main(); len(main) != 1 {
		t.Errorf("main requests = %d, want 1", len(main))
	}
}

func TestChatLimits(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Limit: &Limit{Kind: UsageLimit, ResetIn: 90 * time.Minute}},
		{Limit: &Limit{Kind: RateLimit, ResetIn: 20 * time.Second}}}})
	resp, body := post(t, s.URL()+"/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`, nil)
	m := decode(t, body)
	if resp.StatusCode != http.StatusTooManyRequests || dig(m, "error", "code") != "insufficient_quota" ||
		resp.Header.Get("retry-after") != "5400" || !strings.HasSuffix(dig(m, "error", "message").(string), "will reset at 4:30 AM UTC.") {
		t.Errorf("usage limit: %d %v %v", resp.StatusCode, resp.Header, m)
	}
	resp, body = post(t, s.URL()+"/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`, nil)
	m = decode(t, body)
	if resp.StatusCode != http.StatusTooManyRequests || dig(m, "error", "code") != "rate_limit_exceeded" ||
		resp.Header.Get("retry-after") != "20" {
		t.Errorf("rate limit: %d %v %v", resp.StatusCode, resp.Header, m)
	}
	w := s.AddLimitWindow(&LimitWindow{For: time.Minute})
	resp, _ = post(t, s.URL()+"/v1/chat/completions", `{"model":"m","messages":[
		{"role":"system","content":"You are a title generator."},{"role":"user","content":"x"}]}`, nil)
	if resp.StatusCode != http.StatusTooManyRequests || w.Refused() != 1 {
		t.Errorf("a window refuses side calls too: %d, refused %d", resp.StatusCode, w.Refused())
	}
}
