//go:build !e2e

package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const block = "CHECKPOINT: T1\nStatus: implementing\nCompleted:\n- parsed config\nRemaining:\n- write tests\nFiles Modified: a.go\nEstimated Progress: 40%"

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hooks", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestClaudePayloads(t *testing.T) {
	if got := ClaudeStop(testdata(t, "claude-stop")); got != block {
		t.Errorf("ClaudeStop = %q, want the block verbatim", got)
	}
	pct, ok := ClaudeStatusLine(testdata(t, "claude-status"))
	if !ok || pct != 15 {
		t.Errorf("ClaudeStatusLine = %v, %v; want 15 (150000 of 1000000 tokens)", pct, ok)
	}
	if _, ok := ClaudeStatusLine([]byte(`{"context_window":{"used_percentage":null}}`)); ok {
		t.Error("a null used_percentage (before the first answer) must not count")
	}
	if _, _, ok := ClaudeStopFailure(testdata(t, "claude-stop")); ok {
		t.Error("a Stop payload is not a StopFailure")
	}
	kind, details, ok := ClaudeStopFailure([]byte(`{"hook_event_name":"StopFailure","error":"rate_limit","error_details":"429 limit"}`))
	if !ok || kind != "rate_limit" || details != "429 limit" {
		t.Errorf("ClaudeStopFailure = %q %q %v", kind, details, ok)
	}
	rl := ClaudeRateLimits([]byte(`{"rate_limits":{"five_hour":{"used_percentage":93,"resets_at":1760000000}}}`))
	if len(rl) != 1 || rl[0].Window != "five_hour" || rl[0].UsedPercent != 93 || rl[0].ResetsAt != 1760000000 {
		t.Errorf("ClaudeRateLimits = %+v", rl)
	}
	if rl := ClaudeRateLimits(testdata(t, "claude-status")); rl != nil {
		t.Errorf("API-key session has no rate limits, got %+v", rl)
	}
}

func TestCodexPayloads(t *testing.T) {
	text, thread, title := CodexNotify(testdata(t, "codex-notify"))
	if text != block || thread == "" || title {
		t.Errorf("CodexNotify = %q, %q, title %v", text, thread, title)
	}
	text, thread2, title := CodexNotify(testdata(t, "codex-notify-title"))
	if !title || thread2 == thread || !strings.Contains(text, "title") {
		t.Errorf("title turn: %q, %q, title %v", text, thread2, title)
	}
	pct, ok := CodexTokenCount(testdata(t, "codex-token-count"))
	if !ok || pct != 50 {
		t.Errorf("CodexTokenCount = %v, %v; want 50 (129200 of 258400)", pct, ok)
	}
	for _, line := range []string{`{"type":"response_item","payload":{"type":"message"}}`,
		`{"type":"event_msg","payload":{"type":"token_count","info":null}}`, `not json`} {
		if _, ok := CodexTokenCount([]byte(line)); ok {
			t.Errorf("CodexTokenCount(%s) ok", line)
		}
	}
	if rl := CodexRateLimits(testdata(t, "codex-token-count")); rl != nil {
		t.Errorf("fake provider sent no windows, got %+v", rl)
	}
	rl := CodexRateLimits([]byte(`{"type":"event_msg","payload":{"type":"token_count","rate_limits":{"primary":{"used_percent":100,"resets_at":1760000000}}}}`))
	if len(rl) != 1 || rl[0].UsedPercent != 100 {
		t.Errorf("CodexRateLimits = %+v", rl)
	}
}

func TestGeminiPayloads(t *testing.T) {
	// The fake's chunking leaves a garbled second copy after the block;
	// the block itself must come first and whole.
	if got := GeminiAfterAgent(testdata(t, "gemini-after-agent")); !strings.HasPrefix(got, block) {
		t.Errorf("GeminiAfterAgent = %q, want it to start with the block", got)
	}
	model := testdata(t, "gemini-after-model")
	if got := GeminiAfterModel(model); got != 262144 {
		t.Errorf("GeminiAfterModel = %d, want 262144", got)
	}
	if pct, ok := GeminiPercent(model, 0); !ok || pct != 25 {
		t.Errorf("GeminiPercent = %v, %v; want 25", pct, ok)
	}
	if pct, ok := GeminiPercent(model, 524288); !ok || pct != 50 {
		t.Errorf("GeminiPercent with a set limit = %v, %v; want 50", pct, ok)
	}
	if _, ok := GeminiPercent([]byte(`{"llm_response":{}}`), 0); ok {
		t.Error("a chunk without usage must not count")
	}
	if GeminiTokenLimit("gemma-4-31b-it") != 256000 || GeminiTokenLimit("gemini-2.5-pro") != 1048576 {
		t.Error("GeminiTokenLimit does not mirror the CLI's table")
	}
}
