//go:build e2e

package fakeprovider_test

import (
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/internal/fakeprovider/clirun"
)

// TestRealCodexNearItsLimit: the real Codex against the Codex backend's
// window headers (x-codex-primary-* on every answer) at 95 % warns "Heads
// up, you have less than 5% of your 5h limit left" and opens "Approaching
// rate limits / Switch to … for lower credit usage?" with the switch
// preselected; "2" keeps the model. Its rollout's token_count carries
// rate_limits.primary {used_percent 95, window_minutes 300, resets_at}.
// The dialog opens once a session: at the limit after it, only the banner.
func TestRealCodexNearItsLimit(t *testing.T) {
	r := startRig(t, clirun.Options{CLI: "codex"})
	quotaReset := resetNear(2 * time.Hour)
	r.srv.SetQuota("", &fakeprovider.Quota{UsedPercent: 95, ResetAt: quotaReset})
	r.submit("first turn")
	screen := r.waitRows(30*time.Second, "ANSWER 1", "Heads up, you have less than 5% of your 5h limit left",
		"Approaching rate limits", "for lower credit usage?", "› 1. Switch to ", "2. Keep current model")
	t.Logf("at 95 %%:\n%s", screen)
	if !hasPrimary(readRollout(t, r.cli.Home), 95, quotaReset) {
		t.Error("the rollout has no token_count with rate_limits.primary at 95 %")
	}
	if err := r.cli.Write("2"); err != nil { // keep the current model
		t.Fatal(err)
	}
	r.wait("the dialog closed", 10*time.Second, func(s string) bool { return !strings.Contains(s, "Approaching rate limits") })

	// A reset on another day reads "try again at Nov 26th, 2026 12:40 AM".
	reset := resetNear(5 * time.Minute)
	r.srv.AddLimitWindow(&fakeprovider.LimitWindow{For: time.Minute, ResetAt: reset})
	r.submit("second turn")
	r.waitRows(30*time.Second, "You’ve hit your usage limit.", "try again at ", reset.UTC().Format("3:04 PM")+".")
	time.Sleep(3 * time.Second)
	if s := r.cli.Screen(); strings.Contains(s, "Approaching rate limits") {
		t.Errorf("the model-switch dialog opened a second time:\n%s", s)
	}
	if err := r.cli.Quit(); err != nil {
		t.Error(err)
	}
}

// TestRealCodexAtItsLimit: the real Codex at its limit (HTTP 429
// usage_limit_reached with resets_at, x-codex-primary-used-percent 100)
// shows "You’ve hit your usage limit. … try again at <clock>." and opens
// the model-switch dialog (switch preselected), records
// rate_limits.primary at 100 % with the window's resets_at in its rollout,
// retries nothing, and does nothing at the reset: no request until
// something is typed.
func TestRealCodexAtItsLimit(t *testing.T) {
	r := startRig(t, clirun.Options{CLI: "codex"})
	r.submit("first turn")
	r.waitRows(30*time.Second, "ANSWER 1")

	reset := resetNear(30 * time.Second)
	w := r.srv.AddLimitWindow(&fakeprovider.LimitWindow{For: time.Until(reset), ResetAt: reset})
	r.submit("second turn")
	screen := r.waitRows(30*time.Second, "You’ve hit your usage limit.", "try again at ", reset.UTC().Format("3:04 PM")+".",
		"Approaching rate limits", "› 1. Switch to ", "2. Keep current model")
	t.Logf("at the limit:\n%s", screen)
	r.wait("the limit in the rollout", 10*time.Second, func(string) bool { return hasPrimary(readRollout(t, r.cli.Home), 100, reset) })

	// Nothing happens at the reset: no turn 20 s after it. (A thread-title
	// side call of the first turn may fall in the window too.)
	time.Sleep(time.Until(reset) + 20*time.Second)
	refused := r.turns().Where(func(q fakeprovider.Request) bool { return q.Refused })
	if n := len(r.turns()); len(refused) != 1 || n != 2 {
		t.Errorf("%d turns refused in the window (%d requests in all), %d turns: Codex retried or resumed by itself",
			len(refused), w.Refused(), n)
	}
	if err := r.cli.Write("2"); err != nil { // keep the current model
		t.Fatal(err)
	}
	r.wait("the dialog closed", 10*time.Second, func(s string) bool { return !strings.Contains(s, "Approaching rate limits") })
	r.submit("continue")
	r.waitRows(30*time.Second, "ANSWER 2")
	if err := r.cli.Quit(); err != nil {
		t.Error(err)
	}
}

// hasPrimary reports whether a rollout token_count event carries
// rate_limits.primary with used percent used and resets_at reset.
func hasPrimary(lines []map[string]any, used float64, reset time.Time) bool {
	for _, l := range lines {
		p := dig(l, "payload", "rate_limits", "primary")
		if dig(l, "payload", "type") == "token_count" && dig(p, "used_percent") == used &&
			dig(p, "window_minutes") == 300.0 && dig(p, "resets_at") == float64(reset.Unix()) {
			return true
		}
	}
	return false
}
