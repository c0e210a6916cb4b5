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
