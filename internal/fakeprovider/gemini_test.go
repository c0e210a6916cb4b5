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
	s := newTestServer(t, Script{Answers: []Answer{{Limit: &Limit{Kind: UsageLimit}}}})
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
