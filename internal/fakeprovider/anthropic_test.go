//go:build !e2e

package fakeprovider

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestAnthropicStreamsAnswerWithUsage(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Text: checkpointText, InputTokens: 150000, OutputTokens: 60}}, ChunkRunes: 7})
	resp, body := post(t, s.URL()+"/v1/messages?beta=true", `{"model":"claude-test","stream":true,"max_tokens":100,
		"messages":[{"role":"user","content":[{"type":"text","text":"CHECKPOINT REQUEST: T060"}]}]}`,
		map[string]string{"User-Agent": "claude-cli/2.1.332 (external, cli)"})
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := parseSSE(t, body)
	var names []string
	var text strings.Builder
	deltas := 0
	for _, e := range events {
		names = append(names, e.name)
		if e.data["type"] != e.name {
			t.Errorf("event %q carries type %v", e.name, e.data["type"])
		}
		if e.name == "content_block_delta" {
			deltas++
			text.WriteString(dig(e.data, "delta", "text").(string))
		}
	}
	if text.String() != checkpointText {
		t.Errorf("streamed text = %q, want %q", text.String(), checkpointText)
	}
	if deltas < 2 {
		t.Errorf("answer came in %d deltas, want it split", deltas)
	}
	if names[0] != "message_start" || names[len(names)-1] != "message_stop" {
		t.Errorf("event order %v", names)
	}
	if got := dig(events[0].data, "message", "usage", "input_tokens"); got != 150000.0 {
		t.Errorf("message_start input_tokens = %v, want 150000", got)
	}
	last := events[len(events)-2]
	if last.name != "message_delta" || dig(last.data, "usage", "output_tokens") != 60.0 ||
		dig(last.data, "delta", "stop_reason") != "end_turn" {
		t.Errorf("message_delta = %v", last.data)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Provider != Anthropic || reqs[0].Prompt != "CHECKPOINT REQUEST: T060" ||
		reqs[0].Model != "claude-test" || !reqs[0].Stream || reqs[0].Answered != "text" ||
		!strings.HasPrefix(reqs[0].UserAgent, "claude-cli/") {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestAnthropicNonStreamingAndTitleSideCall(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Text: "first"}, {Text: "second"}}})
	// A title call carries a JSON schema: answered from it, no answer used.
	_, body := post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"hi"}],
		"output_config":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}}}}`, nil)
	if got := dig(decode(t, body), "content", 0, "text"); got != `{"title":"fake"}` {
		t.Errorf("side call text = %v", got)
	}
	_, body = post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, nil)
	m := decode(t, body)
	if dig(m, "content", 0, "text") != "first" || dig(m, "type") != "message" || dig(m, "usage", "output_tokens") == nil {
		t.Errorf("non-streaming reply = %v", m)
	}
	if reqs := s.Requests(); !reqs[0].Side || reqs[0].Answered != "json" || reqs[1].Side {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestAnthropicUsageLimitIsRejected429(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Limit: &Limit{Kind: UsageLimit, ResetIn: 3 * time.Hour}}}})
	resp, body := post(t, s.URL()+"/v1/messages", `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`, nil)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status = %d, want 429", resp.StatusCode)
	}
	m := decode(t, body)
	if m["type"] != "error" || dig(m, "error", "type") != "rate_limit_error" {
		t.Errorf("body = %v", m)
	}
	wantReset := strconv.FormatInt(start.Add(3*time.Hour).Unix(), 10)
	h := resp.Header
	if h.Get("anthropic-ratelimit-unified-status") != "rejected" || h.Get("anthropic-ratelimit-unified-reset") != wantReset ||
		h.Get("anthropic-ratelimit-unified-representative-claim") != "five_hour" || h.Get("x-should-retry") != "false" {
		t.Errorf("headers = %v, want unified rejected resetting at %s", h, wantReset)
	}
	if got := s.Requests()[0].Answered; got != "usage_limit" {
		t.Errorf("answered = %q", got)
	}
}

func TestAnthropicRateLimitAsksForRetry(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Limit: &Limit{Kind: RateLimit}}}})
	resp, body := post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"go"}]}`, nil)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("retry-after") != "2" ||
		resp.Header.Get("x-should-retry") != "true" || resp.Header.Get("anthropic-ratelimit-requests-remaining") != "0" {
		t.Errorf("status %d headers %v", resp.StatusCode, resp.Header)
	}
	if dig(decode(t, body), "error", "type") != "rate_limit_error" {
		t.Errorf("body = %s", body)
	}
}

// probe is the tool call the dialog tests script: a command whose effect
// (the file) shows whether it ran.
var probe = &ToolCall{Command: "curl -s http://127.0.0.1:9/probe > fetched.txt", Description: "probe a write"}

func TestAnthropicToolUseIsStreamedAsBashCall(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Text: "Probing.", Tool: probe}, {Text: "ok"}}, ChunkRunes: 9})
	_, body := post(t, s.URL()+"/v1/messages?beta=true", `{"model":"m","stream":true,
		"messages":[{"role":"user","content":[{"type":"text","text":"go"}]}]}`, nil)
	events := parseSSE(t, body)
	var text, input strings.Builder
	var start map[string]any
	for _, e := range events {
		switch {
		case e.name == "content_block_start" && dig(e.data, "index") == 1.0:
			start, _ = e.data["content_block"].(map[string]any)
		case e.name == "content_block_delta" && dig(e.data, "delta", "type") == "text_delta":
			text.WriteString(dig(e.data, "delta", "text").(string))
		case e.name == "content_block_delta" && dig(e.data, "delta", "type") == "input_json_delta":
			if dig(e.data, "index") != 1.0 {
				t.Errorf("input delta at index %v", dig(e.data, "index"))
			}
			input.WriteString(dig(e.data, "delta", "partial_json").(string))
		}
	}
	id := s.Requests()[0].ToolCallID
	if start["type"] != "tool_use" || start["name"] != "Bash" || start["id"] != id || !strings.HasPrefix(id, "toolu_") ||
		len(start["input"].(map[string]any)) != 0 {
		t.Errorf("tool_use block start = %v, call id %q", start, id)
	}
	if text.String() != "Probing." {
		t.Errorf("text before the call = %q", text.String())
	}
	got := decode(t, []byte(input.String()))
	if got["command"] != probe.Command || got["description"] != probe.Description || len(got) != 2 {
		t.Errorf("input = %v", got)
	}
	if md := events[len(events)-2]; md.name != "message_delta" || dig(md.data, "delta", "stop_reason") != "tool_use" {
		t.Errorf("message_delta = %v", md.data)
	}
	if r := s.Requests()[0]; r.Answered != "tool_call" {
		t.Errorf("answered = %q", r.Answered)
	}
	if _, _, ok := s.ResultOf(id); ok {
		t.Error("a result before any came back")
	}

	// The CLI denies: the next user message carries an error tool_result,
	// the interruption note and the user's text; a system entry comes last.
	post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"go"},
		{"role":"assistant","content":[{"type":"tool_use","id":"`+id+`","name":"Bash","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","is_error":true,
		"content":"The user doesn't want to proceed with this tool use."},
		{"type":"text","text":"[Request interrupted by user for tool use]"},{"type":"text","text":"next"}]},
		{"role":"system","content":"env"}]}`, nil)
	res, carrier, ok := s.ResultOf(id)
	if !ok || !res.IsError || !strings.Contains(res.Text, "doesn't want to proceed") || res.CallID != id {
		t.Errorf("result = %+v, %v", res, ok)
	}
	if carrier.Prompt != "[Request interrupted by user for tool use]\nnext" || carrier.Answered != "text" {
		t.Errorf("carrier = %+v", carrier)
	}
}

func TestAnthropicToolUseWithoutStreamAndBlockResult(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Tool: probe}, {Text: "done"}}})
	_, body := post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"go"}]}`, nil)
	m := decode(t, body)
	id := s.Requests()[0].ToolCallID
	if dig(m, "stop_reason") != "tool_use" || dig(m, "content", 0, "type") != "tool_use" || dig(m, "content", 0, "id") != id ||
		dig(m, "content", 0, "input", "command") != probe.Command || dig(m, "content", 1) != nil {
		t.Errorf("reply = %v", m)
	}
	// A command that ran: content is a list of text blocks, no is_error.
	post(t, s.URL()+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result",
		"tool_use_id":"`+id+`","content":[{"type":"text","text":"Exit code 7"}]}]}]}`, nil)
	res, carrier, ok := s.ResultOf(id)
	if !ok || res.IsError || res.Text != "Exit code 7" || carrier.Prompt != "" {
		t.Errorf("result %+v ok %v carrier %+v", res, ok, carrier)
	}
}
