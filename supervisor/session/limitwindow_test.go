//go:build !e2e

package session

import (
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
)

// A reported reset is bounded by the window it names (issue 33): the
// issue's line — five_hour used up, resetting in 86000 s — gives a reset
// five hours off at most (it was 24 h), a seven_day window's reset three
// days off is kept (no longer cut to 24 h), Codex's primary and secondary
// the same; and every sign a status line, a hook or an app-server gives is
// one the agent's tree can send, never a proof.
func TestAResetIsBoundedByItsWindow(t *testing.T) {
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	in := func(d time.Duration) int64 { return now.Add(d).Unix() }
	cases := []struct {
		l    profile.RateLimit
		want time.Duration // from now; -1: not used up
	}{
		{profile.RateLimit{Window: "five_hour", UsedPercent: 100, ResetsAt: in(86000 * time.Second)}, 5 * time.Hour},
		{profile.RateLimit{Window: "primary", UsedPercent: 100, ResetsAt: in(86000 * time.Second)}, 5 * time.Hour},
		{profile.RateLimit{Window: "five_hour", UsedPercent: 100, ResetsAt: in(time.Hour)}, time.Hour},
		{profile.RateLimit{Window: "seven_day", UsedPercent: 100, ResetsAt: in(72 * time.Hour)}, 72 * time.Hour},
		{profile.RateLimit{Window: "secondary", UsedPercent: 100, ResetsAt: in(30 * 24 * time.Hour)}, 7 * 24 * time.Hour},
		{profile.RateLimit{Window: "other", UsedPercent: 100, ResetsAt: in(30 * time.Hour)}, 24 * time.Hour},
		{profile.RateLimit{Window: "five_hour", UsedPercent: 100}, 0},
		{profile.RateLimit{Window: "five_hour", UsedPercent: 99, ResetsAt: in(time.Hour)}, -1},
		{profile.RateLimit{Window: "five_hour", UsedPercent: 100, ResetsAt: in(-time.Minute)}, -1},
	}
	for _, c := range cases {
		reset, used := usedUp(c.l, now)
		switch {
		case c.want < 0 && used:
			t.Errorf("%+v: used up", c.l)
		case c.want == 0 && (!used || !reset.IsZero()):
			t.Errorf("%+v: %v %s, want used up with no reset", c.l, used, reset)
		case c.want > 0 && (!used || !reset.Equal(now.Add(c.want))):
			t.Errorf("%+v: %v, reset in %s, want %s", c.l, used, reset.Sub(now), c.want)
		}
	}
	for src, proof := range map[string]bool{SourceStatusLine: false, SourceRateLimits: false, SourceStopFailure: false,
		SourceBanner: true, SourceDialog: true} {
		if (LimitSign{Source: src}).Proof() != proof {
			t.Errorf("%s: proof %v", src, !proof)
		}
	}
}
