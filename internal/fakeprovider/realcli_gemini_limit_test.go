//go:build e2e

package fakeprovider_test

import (
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/internal/fakeprovider/clirun"
)

// geminiModel is the model Gemini CLI 0.61.0 answers turns with offline.
const geminiModel = "gemini-3.8-flash"

// TestRealGeminiAtItsModelsLimit: the real Gemini CLI when its turn's
// model is out of quota (429 RESOURCE_EXHAUSTED, ErrorInfo QUOTA_EXHAUSTED,
// RetryInfo to the reset) shows "Usage limit reached for <model>. / Access
// resets at <clock> UTC." with "● 1. Keep trying / 2. Stop", sends nothing
// while the dialog waits, and after the reset Enter (Keep trying) gets the
// turn answered.
func TestRealGeminiAtItsModelsLimit(t *testing.T) {
	r := startRig(t, clirun.Options{CLI: "gemini"})
	r.submit("first turn")
	r.waitRows(30*time.Second, "ANSWER 1")

	reset := resetNear(30 * time.Second)
	w := r.srv.AddLimitWindow(&fakeprovider.LimitWindow{For: time.Until(reset), ResetAt: reset, Model: geminiModel})
	r.submit("second turn")
	screen := r.waitRows(30*time.Second, "Usage limit reached for "+geminiModel+".",
		"Access resets at "+reset.UTC().Format("3:04 PM")+" UTC.", "● 1. Keep trying", "2. Stop")
	t.Logf("at the limit:\n%s", screen)
	time.Sleep(time.Until(reset) + 5*time.Second)
	if w.Refused() != 1 || !strings.Contains(r.cli.Screen(), "1. Keep trying") {
		t.Errorf("while the dialog waited: %d requests refused (want 1), screen:\n%s", w.Refused(), r.cli.Screen())
	}
	if err := r.cli.Write("\r"); err != nil {
		t.Fatal(err)
	}
	r.waitRows(30*time.Second, "ANSWER 2")
	if err := r.cli.Quit(); err != nil {
		t.Error(err)
	}
}

// TestRealGeminiRetriesInAnAccountsWindow: when every request of the
// account is refused — its model-routing side call too — Gemini CLI draws
// no dialog and retries the router call without pause until the reset,
// then answers the turn by itself. The test measures the rate.
func TestRealGeminiRetriesInAnAccountsWindow(t *testing.T) {
	r := startRig(t, clirun.Options{CLI: "gemini"})
	r.submit("first turn")
	r.waitRows(30*time.Second, "ANSWER 1")

	reset := time.Now().Add(20 * time.Second)
	w := r.srv.AddLimitWindow(&fakeprovider.LimitWindow{For: 20 * time.Second, ResetAt: reset})
	r.submit("second turn")
	time.Sleep(time.Until(reset))
	refused := r.srv.Ledger().Where(func(q fakeprovider.Request) bool { return q.Refused })
	router := refused.Where(func(q fakeprovider.Request) bool { return q.Side })
	if len(refused) == 0 {
		t.Fatal("nothing was refused")
	}
	span := refused[len(refused)-1].At.Sub(refused[0].At).Seconds()
	rate := float64(len(refused)) / max(span, 1)
	t.Logf("refused %d requests (%d router calls) in %.1f s: %.0f a second", w.Refused(), len(router), span, rate)
	if rate < 10 || len(router) < len(refused)*9/10 || strings.Contains(r.cli.Screen(), "Usage limit reached") {
		t.Errorf("refused %d (%d router) at %.0f/s; screen:\n%s", len(refused), len(router), rate, r.cli.Screen())
	}
	r.waitRows(30*time.Second, "ANSWER 2")
	if err := r.cli.Quit(); err != nil {
		t.Error(err)
	}
}
