//go:build !e2e

package fakeprovider

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
)

const (
	anthropicPath = "/v1/messages?beta=true"
	anthropicReq  = `{"model":"claude-test","messages":[{"role":"user","content":"go"}]}`
	openaiPath    = "/v1/responses"
	openaiReq     = `{"model":"fake-model","input":"go"}`
	geminiPath    = "/v1beta/models/gemini-test:generateContent"
	geminiReq     = `{"contents":[{"role":"user","parts":[{"text":"go"}]}]}`
)

// A window refuses every request it covers — side calls too — from its
// start until it closes, reports its reset, counts what it refused, and
// leaves other accounts alone.
func TestLimitWindowRefusesItsAccountUntilItCloses(t *testing.T) {
	clk := clock.NewFake(start)
	s := newTestServer(t, Script{Clock: clk, Answers: []Answer{{Text: "fine", InputTokens: 100, OutputTokens: 10}}})
	reset := start.Add(10 * time.Minute)
	w := s.AddLimitWindow(&LimitWindow{From: start.Add(time.Minute), For: 2 * time.Minute, ResetAt: reset, Account: "a"})
	a := map[string]string{AccountHeader: "a"}
	b := map[string]string{AccountHeader: "b"}

	if resp, _ := post(t, s.URL()+anthropicPath, anthropicReq, a); resp.StatusCode != http.StatusOK {
		t.Fatalf("before the window: status %d", resp.StatusCode)
	}
	clk.Advance(time.Minute)
	resp, _ := post(t, s.URL()+anthropicPath, anthropicReq, a)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("anthropic-ratelimit-unified-reset") != strconv.FormatInt(reset.Unix(), 10) {
		t.Errorf("in the window: status %d, reset %q", resp.StatusCode, resp.Header.Get("anthropic-ratelimit-unified-reset"))
	}
	// A title side call is refused too, as a real account limit does.
	side := `{"model":"fake-model","input":"title","text":{"format":{"type":"json_schema","schema":{"type":"object"}}}}`
	if resp, _ := post(t, s.URL()+openaiPath, side, a); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("side call in the window: status %d", resp.StatusCode)
	}
	if resp, _ := post(t, s.URL()+geminiPath, geminiReq, b); resp.StatusCode != http.StatusOK {
		t.Errorf("another account in the window: status %d", resp.StatusCode)
	}
	// A window for one model leaves the others alone.
	s.AddLimitWindow(&LimitWindow{For: time.Minute, Account: "b", Model: "gemini-3.8-*"})
	if resp, _ := post(t, s.URL()+geminiPath, geminiReq, b); resp.StatusCode != http.StatusOK {
		t.Errorf("another model in a model's window: status %d", resp.StatusCode)
	}
	if resp, _ := post(t, s.URL()+"/v1beta/models/gemini-3.8-flash:generateContent", geminiReq, b); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the model in its window: status %d", resp.StatusCode)
	}
	clk.Advance(2 * time.Minute)
	if resp, _ := post(t, s.URL()+anthropicPath, anthropicReq, a); resp.StatusCode != http.StatusOK {
		t.Errorf("after the window: status %d", resp.StatusCode)
	}
	if w.Refused() != 2 {
		t.Errorf("refused = %d, want 2", w.Refused())
	}
	l := s.Ledger()
	if l.Refused() != 3 || len(l.Of("a")) != 4 || len(l.Of("b")) != 3 {
		t.Errorf("ledger: refused %d, a %d, b %d", l.Refused(), len(l.Of("a")), len(l.Of("b")))
	}
	if in := l.Between(start.Add(time.Minute), start.Add(3*time.Minute)); len(in) != 5 || in[0].Status != http.StatusTooManyRequests {
		t.Errorf("requests in the window: %+v", in)
	}
}

// Each API's limit error names the window's reset in its own fields.
func TestLimitWindowResetInEachAPIsOwnFields(t *testing.T) {
	clk := clock.NewFake(start)
	s := newTestServer(t, Script{Clock: clk})
	reset := start.Add(90 * time.Minute)
	s.AddLimitWindow(&LimitWindow{For: time.Hour, ResetAt: reset})

	resp, body := post(t, s.URL()+openaiPath, openaiReq, nil)
	m := decode(t, body)
	if dig(m, "error", "type") != "usage_limit_reached" || dig(m, "error", "resets_at") != float64(reset.Unix()) ||
		resp.Header.Get("x-codex-primary-used-percent") != "100.0" ||
		resp.Header.Get("x-codex-primary-reset-at") != strconv.FormatInt(reset.Unix(), 10) {
		t.Errorf("codex: %v %v", resp.Header, m)
	}
	_, body = post(t, s.URL()+geminiPath, geminiReq, nil)
	m = decode(t, body)
	if dig(m, "error", "details", 0, "reason") != "QUOTA_EXHAUSTED" ||
		dig(m, "error", "details", 0, "domain") != "cloudcode-pa.googleapis.com" ||
		dig(m, "error", "details", 1, "retryDelay") != "5400s" {
		t.Errorf("gemini: %v", m)
	}
	resp, _ = post(t, s.URL()+anthropicPath, anthropicReq, nil)
	if resp.Header.Get("anthropic-ratelimit-unified-status") != "rejected" || resp.Header.Get("retry-after") != "5400" ||
		resp.Header.Get("anthropic-ratelimit-unified-representative-claim") != "five_hour" {
		t.Errorf("anthropic: %v", resp.Header)
	}
}

// A quota puts the account's standing on every successful answer: the
// unified headers (allowed_warning from 90 %) and Codex's windows; an
// account without one gets none.
func TestQuotaHeadersOnSuccessfulAnswers(t *testing.T) {
	s := newTestServer(t, Script{})
	reset := start.Add(2 * time.Hour)
	s.SetQuota("a", &Quota{UsedPercent: 95, ResetAt: reset, WeeklyPercent: 30})
	a := map[string]string{AccountHeader: "a"}

	resp, _ := post(t, s.URL()+anthropicPath, anthropicReq, a)
	h := resp.Header
	if h.Get("anthropic-ratelimit-unified-status") != "allowed_warning" || h.Get("anthropic-ratelimit-unified-5h-utilization") != "0.95" ||
		h.Get("anthropic-ratelimit-unified-5h-reset") != strconv.FormatInt(reset.Unix(), 10) ||
		h.Get("anthropic-ratelimit-unified-7d-utilization") != "0.3" {
		t.Errorf("anthropic headers: %v", h)
	}
	resp, _ = post(t, s.URL()+openaiPath, openaiReq, a)
	if resp.Header.Get("x-codex-primary-used-percent") != "95.0" || resp.Header.Get("x-codex-primary-window-minutes") != "300" ||
		resp.Header.Get("x-codex-primary-reset-at") != strconv.FormatInt(reset.Unix(), 10) {
		t.Errorf("codex headers: %v", resp.Header)
	}
	resp, _ = post(t, s.URL()+anthropicPath, anthropicReq, nil)
	if resp.Header.Get("anthropic-ratelimit-unified-status") != "" {
		t.Errorf("an account without a quota got %v", resp.Header)
	}
	s.SetQuota("a", nil)
	if resp, _ = post(t, s.URL()+openaiPath, openaiReq, a); resp.Header.Get("x-codex-primary-used-percent") != "" {
		t.Errorf("a cleared quota still reported: %v", resp.Header)
	}
}

// The tokens served — cached and cache-written input included — are in
// each API's own usage fields, and the ledger holds the same figures.
func TestUsageInEachAPIsFieldsAndTheLedger(t *testing.T) {
	answer := Answer{Text: "ok", InputTokens: 1000, CachedTokens: 600, CacheWriteTokens: 300, OutputTokens: 40}
	s := newTestServer(t, Script{Answers: []Answer{answer}})
	want := Usage{Input: 1000, CachedInput: 600, CacheWrite: 300, Output: 40}

	events := parseSSE(t, postBody(t, s.URL()+anthropicPath, strings.Replace(anthropicReq, `"messages"`, `"stream":true,"messages"`, 1)))
	startUsage := dig(events[0].data, "message", "usage")
	endUsage := dig(events[len(events)-2].data, "usage")
	if dig(startUsage, "input_tokens") != 100.0 || dig(startUsage, "cache_read_input_tokens") != 600.0 ||
		dig(startUsage, "cache_creation_input_tokens") != 300.0 || dig(endUsage, "output_tokens") != 40.0 ||
		dig(endUsage, "input_tokens") != 100.0 {
		t.Errorf("anthropic usage: start %v end %v", startUsage, endUsage)
	}
	events = parseSSE(t, postBody(t, s.URL()+openaiPath, strings.Replace(openaiReq, `"input"`, `"stream":true,"input"`, 1)))
	u := dig(events[len(events)-1].data, "response", "usage")
	if dig(u, "input_tokens") != 1000.0 || dig(u, "input_tokens_details", "cached_tokens") != 600.0 || dig(u, "output_tokens") != 40.0 {
		t.Errorf("openai usage: %v", u)
	}
	m := decode(t, postBody(t, s.URL()+geminiPath, geminiReq))
	u = dig(m, "usageMetadata")
	if dig(u, "promptTokenCount") != 1000.0 || dig(u, "cachedContentTokenCount") != 600.0 ||
		dig(u, "candidatesTokenCount") != 40.0 || dig(u, "totalTokenCount") != 1040.0 {
		t.Errorf("gemini usage: %v", u)
	}
	l := s.Ledger()
	if len(l.Main()) != 3 || l.Main().Served() != (Usage{Input: 3000, CachedInput: 1800, CacheWrite: 900, Output: 120}) || l[0].Served != want {
		t.Errorf("ledger: %+v", l)
	}
}

// A scripted cache never exceeds the prompt.
func TestServedCacheStaysWithinThePrompt(t *testing.T) {
	got := served(Answer{InputTokens: 100, CachedTokens: 80, CacheWriteTokens: 50, OutputTokens: 1}, 0)
	if got != (Usage{Input: 100, CachedInput: 80, CacheWrite: 20, Output: 1}) {
		t.Errorf("served = %+v", got)
	}
}

func postBody(t *testing.T, url, body string) []byte {
	t.Helper()
	_, b := post(t, url, body, nil)
	return b
}
