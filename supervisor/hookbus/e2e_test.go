//go:build e2e

package hookbus

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol/profile"
)

// checkpointBlock is the fake model's answer; every CLI must hand it to its
// hook verbatim.
const checkpointBlock = "CHECKPOINT: T1\nStatus: implementing\nCompleted:\n- parsed config\nRemaining:\n- write tests\nFiles Modified: a.go\nEstimated Progress: 40%"

// capture saves a payload as protocol/profile/testdata/hooks/NAME.json when
// WARDEN_CAPTURE_HOOKS=1, so that the parsers are tested on what the real
// CLIs sent.
func capture(t *testing.T, name string, payload []byte) {
	if os.Getenv("WARDEN_CAPTURE_HOOKS") != "1" {
		return
	}
	p := filepath.Join("..", "..", "protocol", "profile", "testdata", "hooks", name+".json")
	if err := os.WriteFile(p, append(append([]byte(nil), payload...), '\n'), 0o600); err != nil {
		t.Errorf("capture %s: %v", name, err)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 0.5 }

func TestEndToEndClaude(t *testing.T) {
	t.Cleanup(func() { proctest.AssertNone(t) }) // runs after the CLI is stopped
	const input = 150000
	r := startCLI(t, "claude", fakeprovider.Answer{Text: checkpointBlock, InputTokens: input})
	r.waitReady(30 * time.Second)
	r.submit("Report progress on T1.")
	var stop, status []byte
	var pct float64
	r.collect(60*time.Second, func(got []Message) bool {
		m := got[len(got)-1]
		switch m.Kind {
		case profile.KindClaudeStop:
			if strings.Contains(profile.ClaudeStop(m.Payload), checkpointBlock) {
				stop = m.Payload
			}
		case profile.KindClaudeStatus:
			if p, ok := profile.ClaudeStatusLine(m.Payload); ok && p > 0 {
				status, pct = m.Payload, p
			}
		}
		if m.Agent != "a1" {
			t.Errorf("message from agent %q, want a1", m.Agent)
		}
		return stop != nil && status != nil
	})
	capture(t, "claude-stop", stop)
	capture(t, "claude-status", status)
	size := contextWindowSize(t, status)
	if want := 100 * float64(input) / float64(size); !near(pct, want) {
		t.Errorf("claude used_percentage %v, want %v (%d input tokens of %d)", pct, want, input, size)
	}
	if !r.waitScreen("user-line · warden: 15% context", 10*time.Second) {
		t.Errorf("status line does not show the user's line and warden's gauge; screen:\n%s", r.screen())
	}
	if _, err := os.Stat(filepath.Join(r.home, "user-stop-ran")); err != nil {
		t.Errorf("the user's own Stop hook did not run beside warden's: %v", err)
	}
}

func TestEndToEndCodex(t *testing.T) {
	t.Cleanup(func() { proctest.AssertNone(t) }) // runs after the CLI is stopped
	const input = 129200
	r := startCLI(t, "codex", fakeprovider.Answer{Text: checkpointBlock, InputTokens: input})
	r.waitReady(30 * time.Second)
	r.submit("Report progress on T1.")
	var notify, tokens []byte
	var pct float64
	r.collect(60*time.Second, func(got []Message) bool {
		m := got[len(got)-1]
		switch m.Kind {
		case profile.KindCodexNotify:
			if text, thread, title := profile.CodexNotify(m.Payload); !title && thread != "" && strings.Contains(text, checkpointBlock) {
				notify = m.Payload
			} else if title {
				capture(t, "codex-notify-title", m.Payload)
			}
		case profile.KindCodexTokenCount:
			if p, ok := profile.CodexTokenCount(m.Payload); ok {
				tokens, pct = m.Payload, p
			}
		}
		return notify != nil && tokens != nil
	})
	capture(t, "codex-notify", notify)
	capture(t, "codex-token-count", tokens)
	window := codexWindow(t, tokens)
	if want := 100 * float64(input) / float64(window); !near(pct, want) {
		t.Errorf("codex context %v%%, want %v%% (%d input tokens of %d)", pct, want, input, window)
	}
}

func TestEndToEndGemini(t *testing.T) {
	t.Cleanup(func() { proctest.AssertNone(t) }) // runs after the CLI is stopped
	const input = 262144
	r := startCLI(t, "gemini", fakeprovider.Answer{Text: checkpointBlock, InputTokens: input})
	r.waitReady(45 * time.Second)
	r.submit("Report progress on T1.")
	var agent, model []byte
	r.collect(60*time.Second, func(got []Message) bool {
		m := got[len(got)-1]
		switch m.Kind {
		case profile.KindGeminiAfterAgent:
			if strings.Contains(profile.GeminiAfterAgent(m.Payload), checkpointBlock) {
				agent = m.Payload
			}
		case profile.KindGeminiAfterModel:
			if profile.GeminiAfterModel(m.Payload) > 0 {
				model = m.Payload
			}
		}
		return agent != nil && model != nil
	})
	capture(t, "gemini-after-agent", agent)
	capture(t, "gemini-after-model", model)
	if got := profile.GeminiAfterModel(model); got != input {
		t.Errorf("gemini promptTokenCount %d, want %d", got, input)
	}
	if pct, ok := profile.GeminiPercent(model, 0); !ok || !near(pct, 25) {
		t.Errorf("gemini context %v%% (ok %v), want 25%%", pct, ok)
	}
}
