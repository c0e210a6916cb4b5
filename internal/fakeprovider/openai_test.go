//go:build !e2e

package fakeprovider

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestOpenAIResponsesStreamCompletesWithUsage(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Text: checkpointText, InputTokens: 90000, OutputTokens: 50}}, ChunkRunes: 10})
	resp, body := post(t, s.URL()+"/v1/responses", `{"model":"fake-model","stream":true,"instructions":"x",
		"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"READY?"}]},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"READY"}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"CHECKPOINT REQUEST: T060"}]}]}`,
		map[string]string{"User-Agent": "codex-tui/0.169.0"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d", resp.StatusCode)
	}
	events := parseSSE(t, body)
	var text strings.Builder
	for i, e := range events {
		if e.data["type"] != e.name || e.data["sequence_number"] != float64(i) {
			t.Errorf("event %d %q: type %v sequence %v", i, e.name, e.data["type"], e.data["sequence_number"])
		}
		if e.name == "response.output_text.delta" {
			text.WriteString(e.data["delta"].(string))
		}
	}
	if text.String() != checkpointText {
		t.Errorf("streamed text = %q", text.String())
	}
	if events[0].name != "response.created" {
		t.Errorf("first event %q", events[0].name)
	}
	done := events[len(events)-2]
	if done.name != "response.output_item.done" || dig(done.data, "item", "content", 0, "text") != checkpointText {
		t.Errorf("output_item.done = %v", done.data)
	}
	last := events[len(events)-1]
	if last.name != "response.completed" || dig(last.data, "response", "usage", "input_tokens") != 90000.0 ||
		dig(last.data, "response", "usage", "output_tokens") != 50.0 || dig(last.data, "response", "usage", "total_tokens") != 90050.0 {
		t.Errorf("response.completed = %v", last.data)
	}
	if r := s.Requests()[0]; r.Provider != OpenAI || r.Prompt != "CHECKPOINT REQUEST: T060" || r.Model != "fake-model" {
		t.Errorf("request = %+v", r)
	}
}

func TestOpenAITitleSideCallDoesNotUseAnAnswer(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Text: "only"}}})
	_, body := post(t, s.URL()+"/v1/responses", `{"model":"m","stream":true,"input":"title this",
		"text":{"format":{"type":"json_schema","name":"t","strict":true,"schema":{"type":"object","properties":{"title":{"type":"string"}}}}}}`, nil)
	events := parseSSE(t, body)
	if got := dig(events[len(events)-1].data, "response", "output", 0, "content", 0, "text"); got != `{"title":"fake"}` {
		t.Errorf("side call answer = %v", got)
	}
	_, body = post(t, s.URL()+"/v1/responses", `{"model":"m","input":"go"}`, nil)
	if got := dig(decode(t, body), "output", 0, "content", 0, "text"); got != "only" {
		t.Errorf("non-streaming answer = %v", got)
	}
}

func TestOpenAIUsageLimitReached(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Limit: &Limit{Kind: UsageLimit, ResetIn: 90 * time.Minute}}}})
	resp, body := post(t, s.URL()+"/v1/responses", `{"model":"m","stream":true,"input":"go"}`, nil)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status = %d", resp.StatusCode)
	}
	m := decode(t, body)
	if dig(m, "error", "type") != "usage_limit_reached" || dig(m, "error", "resets_in_seconds") != 5400.0 ||
		dig(m, "error", "resets_at") != float64(start.Add(90*time.Minute).Unix()) {
		t.Errorf("body = %v", m)
	}
	if resp.Header.Get("x-codex-primary-used-percent") != "100.0" {
		t.Errorf("headers = %v", resp.Header)
	}
}

func TestOpenAIRateLimitExceeded(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Limit: &Limit{Kind: RateLimit, ResetIn: 3 * time.Second}}}})
	resp, body := post(t, s.URL()+"/v1/responses", `{"model":"m","stream":true,"input":"go"}`, nil)
	m := decode(t, body)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("retry-after") != "3" ||
		dig(m, "error", "code") != "rate_limit_exceeded" ||
		!strings.Contains(dig(m, "error", "message").(string), "Please try again in 3s.") {
		t.Errorf("status %d headers %v body %v", resp.StatusCode, resp.Header, m)
	}
}

// codexTools is the shape of Codex's tool list: exec_command among others.
const codexTools = `"tools":[{"type":"function","name":"write_stdin","parameters":{"type":"object","properties":{"session_id":{"type":"number"}}}},
	{"type":"function","name":"exec_command","strict":false,"parameters":{"type":"object","properties":{"cmd":{"type":"string"},
	"justification":{"type":"string"},"sandbox_permissions":{"type":"string","enum":["use_default","require_escalated"]},
	"workdir":{"type":"string"}},"required":["cmd"]}},{"type":"web_search"}]`

func TestOpenAIFunctionCallOfTheRequestsShellTool(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Tool: probe}}, ChunkRunes: 11})
	_, body := post(t, s.URL()+"/v1/responses", `{"model":"m","stream":true,`+codexTools+`,
		"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}]}`, nil)
	events := parseSSE(t, body)
	var names []string
	var args strings.Builder
	for _, e := range events {
		names = append(names, e.name)
		if e.name == "response.function_call_arguments.delta" {
			args.WriteString(e.data["delta"].(string))
		}
	}
	want := "response.created response.in_progress response.output_item.added"
	if got := strings.Join(names, " "); !strings.HasPrefix(got, want) ||
		!strings.HasSuffix(got, "response.function_call_arguments.done response.output_item.done response.completed") {
		t.Errorf("events %s", got)
	}
	id := s.Requests()[0].ToolCallID
	added := dig(events[2].data, "item").(map[string]any)
	if added["type"] != "function_call" || added["name"] != "exec_command" || added["call_id"] != id ||
		added["arguments"] != "" || added["status"] != "in_progress" {
		t.Errorf("output_item.added = %v", added)
	}
	got := decode(t, []byte(args.String()))
	if got["cmd"] != probe.Command || got["sandbox_permissions"] != "require_escalated" ||
		got["justification"] != probe.Description || len(got) != 3 {
		t.Errorf("arguments = %v", got)
	}
	done := events[len(events)-2].data
	last := events[len(events)-1].data
	if dig(done, "item", "arguments") != args.String() || dig(done, "item", "status") != "completed" ||
		dig(last, "response", "output", 0, "call_id") != id || dig(last, "response", "output", 1) != nil {
		t.Errorf("done = %v, completed = %v", done, last)
	}

	// The CLI ran it and sends the output: the request brings only the
	// output back, so its prompt is empty (the first prompt does not count).
	post(t, s.URL()+"/v1/responses", `{"model":"m","input":[
		{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]},
		{"type":"function_call","call_id":"`+id+`","name":"exec_command","arguments":"{}"},
		{"type":"function_call_output","call_id":"`+id+`","output":"Process exited with code 7"}]}`, nil)
	res, carrier, ok := s.ResultOf(id)
	if !ok || res.Text != "Process exited with code 7" || res.IsError || carrier.Prompt != "" {
		t.Errorf("result %+v ok %v carrier %+v", res, ok, carrier)
	}
}

func TestOpenAIOlderShellToolAndNoTool(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Tool: probe}}})
	_, body := post(t, s.URL()+"/v1/responses", `{"model":"m","tools":[{"type":"function","name":"shell","parameters":{
		"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}},"with_escalated_permissions":{"type":"boolean"}}}}],
		"input":"go"}`, nil)
	m := decode(t, body)
	if dig(m, "output", 0, "name") != "shell" {
		t.Fatalf("reply = %v", m)
	}
	got := decode(t, []byte(dig(m, "output", 0, "arguments").(string)))
	if dig(got, "command", 2) != probe.Command || dig(got, "command", 0) != "bash" || got["with_escalated_permissions"] != true {
		t.Errorf("arguments = %v", got)
	}
	_, body = post(t, s.URL()+"/v1/responses", `{"model":"m","input":"go"}`, nil)
	m = decode(t, body)
	got = decode(t, []byte(dig(m, "output", 0, "arguments").(string)))
	if dig(m, "output", 0, "name") != "exec_command" || got["cmd"] != probe.Command {
		t.Errorf("without tools: %v", m)
	}
}
