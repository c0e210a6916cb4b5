//go:build e2e

package fakeprovider_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/internal/fakeprovider/clirun"
)

// claudeClock is how Claude Code writes a time: "10:14pm", "10pm".
func claudeClock(t time.Time) string {
	if t.Minute() == 0 {
		return t.UTC().Format("3pm")
	}
	return t.UTC().Format("3:04pm")
}

// TestRealClaudeAtItsLimit: the real Claude Code, signed in as a claude.ai
// subscriber, against the provider's unified rate-limit headers.
//   - At 95 % of its 5-hour window it says so above its input box, and its
//     status line gets rate_limits.five_hour {used_percentage 95,
//     resets_at}.
//   - At the limit (HTTP 429 rate_limit_error, unified status rejected) it
//     shows "You've hit your 5-hour limit · resets <clock> (UTC)" and
//     "Usage limit reached · set to continue automatically at <clock>",
//     retries nothing, calls its StopFailure hook with error rate_limit and
//     the banner (no time), writes error rate_limit to its transcript, and
//     its status line gets used_percentage 100 with the window's resets_at.
//   - After the reset it continues by itself: the refused prompt comes
//     again with "Your claude.ai usage limit has reset", 30 to 120 s after
//     the reset (it fires at reset + a random 30-90 s, checked on a 30 s
//     tick), with a Notification hook quota_auto_resume_fired.
func TestRealClaudeAtItsLimit(t *testing.T) {
	capDir := t.TempDir()
	r := startRig(t, clirun.Options{CLI: "claude", Subscriber: true, Setup: func(home, _ string) error {
		settings := fmt.Sprintf(`{"statusLine": {"type": "command", "command": %q},
 "hooks": {"StopFailure": [{"hooks": [{"type": "command", "command": %q}]}],
           "Notification": [{"hooks": [{"type": "command", "command": %q}]}]}}`,
			capture(capDir, "status")+"; echo status", capture(capDir, "stopfailure"), capture(capDir, "notification"))
		if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(settings), 0o600)
	}})
	quotaReset := resetNear(2 * time.Hour)
	r.srv.SetQuota("", &fakeprovider.Quota{UsedPercent: 95, ResetAt: quotaReset})
	r.submit("first turn")
	r.waitRows(30*time.Second, "ANSWER 1", "You've used 95% of your 5-hour limit · resets "+claudeClock(quotaReset)+" (UTC)")
	r.wait("a status line at 95 %", 15*time.Second, func(string) bool {
		return fiveHour(captured(t, capDir, "status"), 95, quotaReset) != nil
	})

	reset := resetNear(45 * time.Second)
	w := r.srv.AddLimitWindow(&fakeprovider.LimitWindow{For: time.Until(reset), ResetAt: reset})
	r.submit("second turn")
	screen := r.waitRows(30*time.Second, "You've hit your 5-hour limit · resets "+claudeClock(reset)+" (UTC)",
		"Usage limit reached · set to continue automatically at "+claudeClock(reset))
	t.Logf("at the limit:\n%s", screen)
	r.wait("StopFailure and a status line at 100 %", 15*time.Second, func(string) bool {
		return len(captured(t, capDir, "stopfailure")) == 1 && fiveHour(captured(t, capDir, "status"), 100, reset) != nil
	})
	stop := captured(t, capDir, "stopfailure")[0]
	if stop["error"] != "rate_limit" || !strings.Contains(fmt.Sprint(stop["last_assistant_message"]), "You've hit your 5-hour limit") {
		t.Errorf("StopFailure hook: %v", stop)
	}
	if transcript := claudeTranscript(t, r.cli.Home); !strings.Contains(transcript, `"error":"rate_limit"`) ||
		!strings.Contains(transcript, `"apiErrorStatus":429`) {
		t.Error("the transcript has no rate_limit error entry")
	}

	// Claude Code continues by itself after the reset.
	var resumed fakeprovider.Request
	r.wait("the automatic continue", time.Until(reset)+150*time.Second, func(string) bool {
		for _, q := range r.turns() {
			if strings.Contains(q.Prompt, "Your claude.ai usage limit has reset") && q.Status == 200 {
				resumed = q
				return true
			}
		}
		return false
	})
	late := resumed.At.Sub(reset)
	t.Logf("Claude Code continued %.1f s after the reset (refused during the window: %d)", late.Seconds(), w.Refused())
	if late < 25*time.Second || late > 125*time.Second || !strings.Contains(resumed.Prompt, "second turn") {
		t.Errorf("continued %v after the reset with %q", late, resumed.Prompt)
	}
	if w.Refused() != 1 {
		t.Errorf("Claude Code made %d requests in the window, want the one refused", w.Refused())
	}
	r.waitRows(30*time.Second, "Usage limit reset · Continuing automatically", "ANSWER 2")
	r.wait("the Notification hook", 10*time.Second, func(string) bool {
		for _, n := range captured(t, capDir, "notification") {
			if n["notification_type"] == "quota_auto_resume_fired" {
				return true
			}
		}
		return false
	})
	if err := r.cli.Quit(); err != nil {
		t.Error(err)
	}
}

// fiveHour returns the newest status line whose rate_limits.five_hour says
// used percent used and resets_at reset, or nil.
func fiveHour(lines []map[string]any, used float64, reset time.Time) map[string]any {
	for i := len(lines) - 1; i >= 0; i-- {
		fh := dig(lines[i], "rate_limits", "five_hour")
		if dig(fh, "used_percentage") == used && dig(fh, "resets_at") == float64(reset.Unix()) {
			return lines[i]
		}
	}
	return nil
}

// claudeTranscript is the session's transcript (the only one).
func claudeTranscript(t *testing.T, home string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
	if len(m) != 1 {
		t.Fatalf("transcripts: %v", m)
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
