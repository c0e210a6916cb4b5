//go:build !e2e

package fakeprovider

import (
	"net/http"
	"strings"
	"testing"
)

func TestGeminiStreamGenerateContent(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Text: checkpointText, InputTokens: 500000, OutputTokens: 70}}, ChunkRunes: 16})
	resp, body := post(t, s.URL()+"/v1beta/models/gemini-test:streamGenerateContent?alt=sse",
		`{"contents":[{"role":"user","parts":[{"text":"READY?"}]},{"role":"model","parts":[{"text":"READY"}]},
		{"role":"user","parts":[{"text":"CHECKPOINT REQUEST: T060"}]}]}`,
		map[string]string{"x-goog-api-key": "k", "User-Agent": "GeminiCLI-tui/0.61.0"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d", resp.StatusCode)
	}
	events := parseSSE(t, body)
	var text strings.Builder
	for _, e := range events {
		text.WriteString(dig(e.data, "candidates", 0, "content", "parts", 0, "text").(string))
	}
	if text.String() != checkpointText || len(events) < 2 {
		t.Errorf("streamed %d chunks, text %q", len(events), text.String())
	}
	last := events[len(events)-1].data
	if dig(last, "candidates", 0, "finishReason") != "STOP" || dig(last, "usageMetadata", "promptTokenCount") != 500000.0 ||
		dig(last, "usageMetadata", "candidatesTokenCount") != 70.0 || dig(last, "usageMetadata", "totalTokenCount") != 500070.0 {
		t.Errorf("last chunk = %v", last)
	}
	if r := s.Requests()[0]; r.Provider != Gemini || r.Model != "gemini-test" || r.Prompt != "CHECKPOINT REQUEST: T060" || !r.Stream {
		t.Errorf("request = %+v", r)
	}
}

func TestGeminiRouterGetsSchemaFilledObject(t *testing.T) {
	s := newTestServer(t, Script{})
	_, body := post(t, s.URL()+"/v1beta/models/flash-lite:generateContent", `{"contents":[{"role":"user","parts":[{"text":"route"}]}],
		"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{
		"reasoning":{"type":"string"},"complexity_score":{"type":"integer","minimum":1,"maximum":100},
		"model_choice":{"type":"string","enum":["flash","pro"]}},"required":["reasoning"]}}}`, nil)
	text := dig(decode(t, body), "candidates", 0, "content", "parts", 0, "text").(string)
	got := decode(t, []byte(text))
	if got["complexity_score"] != 1.0 || got["model_choice"] != "flash" || got["reasoning"] != "fake" {
		t.Errorf("router answer = %v", got)
	}
	if r := s.Requests()[0]; !r.Side || r.Answered != "json" {
		t.Errorf("request = %+v", r)
	}
	_, body = post(t, s.URL()+"/v1beta/models/m:countTokens", `{"contents":[]}`, nil)
	if decode(t, body)["totalTokens"] == nil {
		t.Errorf("countTokens = %s", body)
	}
}

func TestGeminiDailyQuotaIsTerminalShape(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Limit: &Limit{Kind: UsageLimit, GeminiDaily: true}}}})
	resp, body := post(t, s.URL()+"/v1beta/models/gemini-test:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"go"}]}]}`, nil)
	m := decode(t, body)
	if resp.StatusCode != http.StatusTooManyRequests || dig(m, "error", "code") != 429.0 || dig(m, "error", "status") != "RESOURCE_EXHAUSTED" {
		t.Fatalf("status %d body %v", resp.StatusCode, m)
	}
	// Gemini CLI calls a quota error terminal when a violation's quotaId
	// names a per-day quota, and never when the message says "limit: 0".
	quotaID, _ := dig(m, "error", "details", 0, "violations", 0, "quotaId").(string)
	if !strings.Contains(quotaID, "PerDay") || dig(m, "error", "details", 2, "retryDelay") != "18000s" {
		t.Errorf("details = %v", dig(m, "error", "details"))
	}
	if strings.Contains(dig(m, "error", "message").(string), "limit: 0") {
		t.Errorf("message would read as a zero quota: %v", dig(m, "error", "message"))
	}
}

func TestGeminiPerMinuteQuotaIsRetryable(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Limit: &Limit{Kind: RateLimit}}}})
	_, body := post(t, s.URL()+"/v1beta/models/g:generateContent", `{"contents":[{"role":"user","parts":[{"text":"go"}]}]}`, nil)
	m := decode(t, body)
	quotaID, _ := dig(m, "error", "details", 0, "violations", 0, "quotaId").(string)
	if !strings.Contains(quotaID, "PerMinute") || dig(m, "error", "details", 2, "retryDelay") != "2s" {
		t.Errorf("details = %v", dig(m, "error", "details"))
	}
}

func TestGeminiFunctionCallRunShellCommand(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Text: "I will probe.", Tool: probe}}, ChunkRunes: 5})
	_, body := post(t, s.URL()+"/v1beta/models/g:streamGenerateContent?alt=sse",
		`{"contents":[{"role":"user","parts":[{"text":"go"}]}],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`, nil)
	events := parseSSE(t, body)
	var text strings.Builder
	for _, e := range events[:len(events)-1] {
		text.WriteString(dig(e.data, "candidates", 0, "content", "parts", 0, "text").(string))
		if dig(e.data, "candidates", 0, "finishReason") != nil {
			t.Errorf("a text chunk finished the answer: %v", e.data)
		}
	}
	last := events[len(events)-1].data
	call := dig(last, "candidates", 0, "content", "parts", 0, "functionCall")
	if text.String() != "I will probe." || dig(call, "name") != "run_shell_command" ||
		dig(call, "args", "command") != probe.Command || dig(call, "args", "description") != probe.Description ||
		dig(last, "candidates", 0, "finishReason") != "STOP" || dig(last, "candidates", 0, "content", "role") != "model" {
		t.Errorf("text %q, last chunk %v", text.String(), last)
	}
	r := s.Requests()[0]
	if r.Answered != "tool_call" || r.ToolCallID != "run_shell_command" {
		t.Errorf("request = %+v", r)
	}

	// The CLI names the response with an id of its own making.
	post(t, s.URL()+"/v1beta/models/g:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"go"}]},
		{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{}}}]},
		{"role":"user","parts":[{"functionResponse":{"id":"run_shell_command__run_shell_command_17_0","name":"run_shell_command",
		"response":{"output":"Output: (empty)\nExit Code: 7"}}}]}]}`, nil)
	res, carrier, ok := s.ResultOf(r.ToolCallID)
	if !ok || res.Text != "Output: (empty)\nExit Code: 7" || res.IsError || carrier.Prompt != "" {
		t.Errorf("result %+v ok %v carrier %+v", res, ok, carrier)
	}
}

func TestGeminiCancelledFunctionResponseIsAnError(t *testing.T) {
	s := newTestServer(t, Script{Answers: []Answer{{Tool: probe}, {Text: "ok"}}})
	_, body := post(t, s.URL()+"/v1beta/models/g:generateContent", `{"contents":[{"role":"user","parts":[{"text":"go"}]}]}`, nil)
	if dig(decode(t, body), "candidates", 0, "content", "parts", 0, "functionCall", "name") != "run_shell_command" {
		t.Fatalf("reply = %s", body)
	}
	post(t, s.URL()+"/v1beta/models/g:generateContent", `{"contents":[{"role":"user","parts":[{"text":"go"}]},
		{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{}}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"error":"[Operation Cancelled]"}}}]},
		{"role":"user","parts":[{"text":"what now"}]}]}`, nil)
	res, carrier, ok := s.ResultOf("run_shell_command")
	if !ok || !res.IsError || res.Text != "[Operation Cancelled]" || carrier.Prompt != "what now" {
		t.Errorf("result %+v ok %v carrier %+v", res, ok, carrier)
	}
}
