//go:build e2e

package profile

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeprovider"
)

// limitWords are the rows each CLI draws at and near its usage limit
// (../testdata/cli-*/limit-*, near-limit-*), Claude's with its own "⎿ "
// and no-break space; the last one is Claude's banner, so that typed it
// ends the echo right where the real banner sits.
var limitWords = []string{
	"Quoted from a CLI:",
	"⎿ \u00a0You've used 95% of your 5-hour limit · resets 10:16pm (UTC)",
	"● Usage limit reached · set to continue automatically at 10:50pm",
	"⚠ Usage limit reached · limit resets 10:50pm",
	"Continuing automatically at 10:50pm · Esc to cancel",
	"■ You’ve hit your usage limit. Upgrade to Pro or try again at 10:53 PM.",
	"⚠ Heads up, you have less than 5% of your 5h limit left. Run /status for a breakdown.",
	"Approaching rate limits",
	"Switch to gpt-6-luna for lower credit usage?",
	"› 1. Switch to gpt-6-luna",
	"  2. Keep current model",
	"enter select · esc back",
	"│ Usage limit reached for gemini-3.8-flash. │",
	"│ Access resets at 10:54 PM UTC. │",
	"│ ● 1. Keep trying │",
	"│   2. Stop │",
	"╰──────────╯",
	"⎿ \u00a0You've hit your 5-hour limit · resets 10:50pm (UTC)",
}

func TestRealClaudeTypedLimitWords(t *testing.T) { t.Parallel(); testTypedLimitWords(t, "claude") }
func TestRealCodexTypedLimitWords(t *testing.T)  { t.Parallel(); testTypedLimitWords(t, "codex") }
func TestRealGeminiTypedLimitWords(t *testing.T) { t.Parallel(); testTypedLimitWords(t, "gemini") }

// testTypedLimitWords: the real CLI echoes a prompt made of every CLI's
// limit rows, runs the turn and answers it; on no screen of the way —
// typed in the box, echoed, the turn running, the answer drawn — does the
// profile read a usage limit, a warning before one or a limit dialog.
func testTypedLimitWords(t *testing.T, cli string) {
	s := startCLI(t, cli, answer)
	s.waitScreen("ready prompt", cliStartWait, s.p.Ready)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	now := time.Date(2026, 11, 25, 22, 50, 0, 0, time.UTC)

	stop, done := make(chan struct{}), make(chan struct{})
	seen := 0
	go func() { // every settled screen while the prompt is typed and answered
		defer close(done)
		for {
			sc, settled := s.settledScreen()
			if !settled { // a frame half drawn: warden parses none (Settle)
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				continue
			}
			seen++
			if l, ok := s.p.Limit(sc, now); ok {
				t.Errorf("%s: limit %+v read from typed text on\n%s", cli, l, sc)
				return
			}
			if d, ok := s.p.Dialog(sc); ok && d.Kind == DialogLimit {
				t.Errorf("%s: a limit dialog %+v read from typed text on\n%s", cli, d, sc)
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	text := strings.Join(limitWords, "\n")
	if err := s.p.Submit(ctx, s.ptmx, s.screen, text); err != nil {
		t.Fatalf("%s: submit: %v\nscreen:\n%s", cli, err, s.screen())
	}
	s.waitScreen("the answer", 30*time.Second, func(sc Screen) bool {
		return answered(s.p, sc, "READY. Waiting") && s.p.TurnEnded(sc)
	})
	close(stop)
	<-done
	sc := s.screen()
	if !strings.Contains(sc.(staticScreen).String(), "You've hit your 5-hour limit") &&
		!strings.Contains(sc.(staticScreen).String(), "[Pasted text") {
		t.Errorf("%s: the typed banner is not on the screen, so this test proves nothing:\n%s", cli, sc)
	}
	if cli == "claude" { // the echo ends with a row Claude's banner rule matches: only what follows tells them apart
		v := s.p.tui.view(sc.Rows())
		if e := v.echo; len(e) == 0 || !claudeHit.MatchString(v.rows[e[len(e)-1].to]) {
			t.Errorf("claude: the echo does not end with the banner's row (no-break space kept?):\n%s", sc)
		}
	}
	if n := s.turns("Quoted from a CLI"); n != 1 {
		t.Errorf("%s: the prompt reached the provider %d times, want 1", cli, n)
	}
	if seen < 3 {
		t.Errorf("%s: only %d settled screens read on the way: this test proved little", cli, seen)
	}
	t.Logf("%s: %d screens read; the echo:\n%s", cli, seen, sc)
	if err := s.quit(); err != nil {
		t.Fatalf("%s: quit: %v", cli, err)
	}
}

// TestRealClaudeNearItsLimit: the real Claude Code signed in to claude.ai
// (a fake token), every answer reporting 95 % of the 5-hour window: once
// the answer is drawn, its notice "You've used 95% of your 5-hour limit ·
// resets …" reads as a warning before the limit with the quota's reset —
// never as the limit, never as a limit dialog.
func TestRealClaudeNearItsLimit(t *testing.T) {
	t.Parallel()
	s := startCLI(t, "claude", answer, func(env []string) []string {
		var out []string
		for _, kv := range env {
			if !strings.HasPrefix(kv, "ANTHROPIC_AUTH_TOKEN=") {
				out = append(out, kv)
			}
		}
		return append(out, "CLAUDE_CODE_OAUTH_TOKEN=fake-oauth-token")
	})
	reset := time.Now().UTC().Add(2 * time.Hour).Truncate(time.Minute)
	s.srv.SetQuota("", &fakeprovider.Quota{UsedPercent: 95, ResetAt: reset})
	s.waitScreen("ready prompt", cliStartWait, s.p.Ready)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := s.p.Submit(ctx, s.ptmx, s.screen, "Reply READY now."); err != nil {
		t.Fatalf("submit: %v\nscreen:\n%s", err, s.screen())
	}
	var near Limit
	s.waitScreen("the 95 % notice", 45*time.Second, func(sc Screen) bool {
		l, ok := s.p.Limit(sc, time.Now())
		if ok && l.Kind != LimitApproaching {
			t.Fatalf("Limit = %+v at 95 %% on\n%s", l, sc)
		}
		if d, ok := s.p.Dialog(sc); ok {
			t.Fatalf("a dialog %+v at 95 %% on\n%s", d, sc)
		}
		near = l
		return ok
	})
	if !near.Reset.Equal(reset) || near.AutoResume || !strings.Contains(near.Text, "You've used 95% of your 5-hour limit") {
		t.Errorf("approaching = %+v; want the quota's reset %v", near, reset)
	}
	if sc := s.screen(); !answered(s.p, sc, "READY. Waiting") || !s.p.TurnEnded(sc) {
		t.Errorf("the notice came before the turn ended:\n%s", sc)
	}
	if err := s.quit(); err != nil {
		t.Fatalf("quit: %v", err)
	}
}
