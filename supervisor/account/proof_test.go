//go:build !e2e

package account

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/session"
)

// Issue 33: an account is parked on proof, never on one agent's word.

func exitingAccounts(clk clock.Clock, s *said, exits *[]string) *Accounts {
	return NewAccounts(AccountsConfig{Clock: clk, Log: hclog.NewNullLogger(), OnLimit: config.OnLimitCheckpointExit,
		Timers: &session.Timers{UsageLimitWait: time.Hour, UsageLimitMargin: 30 * time.Second},
		Emit:   s.emit, Printf: func(string, string, ...any) {}, Exit: func(why string) { *exits = append(*exits, why) }})
}

// A sign an agent's own tree can send — its status line, its hook — parks
// that agent alone (usage_limit_wait, alone), until its reset: the other
// agents of its account work on, and with on_limit = "checkpoint-exit" the
// run does not end. At its plan it goes on. A plain agent's own word parks
// it, and ends the run only once its screen shows the limit.
func TestAnAgentsOwnSignParksItAlone(t *testing.T) {
	start := time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	var s said
	var exits []string
	acc := exitingAccounts(clk, &s, &exits)
	a, b, p := &member{name: "a"}, &member{name: "b"}, &member{name: "p"}
	acc.Add("work", a)
	acc.Add("work", b)
	acc.Add("", p)
	reset := start.Add(time.Hour)
	acc.Limit("a", session.LimitSign{Reset: reset, Exact: true, Source: session.SourceStatusLine, Text: "usage window five_hour used up"})
	if parked, until := a.state(); !parked || !until.Equal(reset.Add(30*time.Second)) {
		t.Errorf("a parked %v until %s", parked, until)
	}
	if parked, _ := b.state(); parked {
		t.Error("b parked on a's word alone")
	}
	if e := s.of(event.AccountParked); len(e) != 0 {
		t.Errorf("account_parked on one agent's word: %v", e)
	}
	if w := s.of(event.UsageLimitWait); len(w) != 1 || w[0]["agent"] != "a" || w[0]["account"] != "work" || w[0]["alone"] != true {
		t.Errorf("usage_limit_wait %v", w)
	}
	acc.Limit("a", session.LimitSign{Source: session.SourceStopFailure}) // its own again: still alone
	if parked, _ := b.state(); parked || len(exits) != 0 {
		t.Errorf("a's second word parked b (%v) or ended the run (%v)", parked, exits)
	}
	clk.Advance(time.Hour + 30*time.Second)
	if parked, _ := a.state(); parked {
		t.Error("a still parked after its own reset")
	}

	acc.Limit("p", session.LimitSign{Reset: start.Add(3 * time.Hour), Exact: true, Source: session.SourceStatusLine})
	if parked, _ := p.state(); !parked || len(exits) != 0 {
		t.Errorf("the plain agent: parked %v, exits %v (want parked, no exit)", parked, exits)
	}
	acc.Limit("p", session.LimitSign{Reset: start.Add(3 * time.Hour), Source: session.SourceBanner})
	if len(exits) != 1 || len(s.of(event.UsageLimitWait)) != 2 {
		t.Errorf("its screen's proof: exits %v, usage_limit_wait %v (want one exit, said once)", exits, s.of(event.UsageLimitWait))
	}
	acc.Close()
}

// A proof — the CLI's screen, on any agent of the account — parks the
// account: an agent's own exact reset that agrees with the screen's minute
// is taken; one that does not (an agent claiming five hours when the
// screen says one) is not; with on_limit = "checkpoint-exit" the run ends.
func TestAProofParksTheAccount(t *testing.T) {
	start := time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)
	shown := start.Add(time.Hour) // the screen's "resets 2:00"
	cases := []struct {
		name  string
		own   time.Time // a's own word
		until time.Time
	}{
		{"agreeing", shown.Add(17 * time.Second), shown.Add(17*time.Second + 30*time.Second)},
		{"five hours, the screen one", start.Add(5 * time.Hour), shown.Add(time.Minute + 30*time.Second)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := clock.NewFake(start)
			var s said
			var exits []string
			acc := exitingAccounts(clk, &s, &exits)
			a, b := &member{name: "a"}, &member{name: "b"}
			acc.Add("work", a)
			acc.Add("work", b)
			acc.Limit("a", session.LimitSign{Reset: c.own, Exact: true, Source: session.SourceStatusLine})
			clk.Advance(time.Second)
			acc.Limit("b", session.LimitSign{Reset: shown, Source: session.SourceBanner, Text: "limit reached, resets 2:00"})
			for _, m := range []*member{a, b} {
				if parked, until := m.state(); !parked || !until.Equal(c.until) {
					t.Errorf("%s parked %v until %s, want %s", m.name, parked, until, c.until)
				}
			}
			e := s.of(event.AccountParked)
			if len(e) != 1 || e[0]["proof"] != "banner on b" || e[0]["source"] != session.SourceBanner || e[0]["since"] != start.Format(time.RFC3339Nano) ||
				e[0]["proved"] != start.Add(time.Second).Format(time.RFC3339Nano) {
				t.Errorf("account_parked %v", e) // since: a's own park; proved: b's banner
			}
			if len(exits) != 1 {
				t.Errorf("exits %v", exits)
			}
			acc.Close()
		})
	}
}

// Two agents of an account saying so is proof: the account is parked until
// the earlier of their resets.
func TestTwoAgentsOfTheAccountAgree(t *testing.T) {
	start := time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	var s said
	acc := newTestAccounts(clk, &s, nil)
	a, b, c := &member{name: "a"}, &member{name: "b"}, &member{name: "c"}
	for _, m := range []*member{a, b, c} {
		acc.Add("work", m)
	}
	acc.Limit("a", session.LimitSign{Reset: start.Add(5 * time.Hour), Exact: true, Source: session.SourceStatusLine})
	acc.Limit("b", session.LimitSign{Reset: start.Add(time.Hour), Exact: true, Source: session.SourceRateLimits})
	for _, m := range []*member{a, b, c} {
		if parked, until := m.state(); !parked || !until.Equal(start.Add(time.Hour+30*time.Second)) {
			t.Errorf("%s parked %v until %s", m.name, parked, until)
		}
	}
	if e := s.of(event.AccountParked); len(e) != 1 || e[0]["proof"] != "a and b said so" {
		t.Errorf("account_parked %v", e)
	}
	acc.Close()
}

// A person ends a park at once (`warden resume --account`, the page): the
// account's — named by the account or by one of its agents — or an agent's
// own; account_resumed says by whom. Nothing parked, or a name no account
// or agent has, is an error.
func TestAPersonReleasesAPark(t *testing.T) {
	start := time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	var s said
	acc := newTestAccounts(clk, &s, nil)
	a, b := &member{name: "a"}, &member{name: "b"}
	acc.Add("work", a)
	acc.Add("work", b)
	acc.Limit("a", session.LimitSign{Reset: start.Add(4 * time.Hour), Source: session.SourceBanner})
	clk.Advance(time.Minute)
	going, err := acc.Release("work", "cli")
	if err != nil || strings.Join(going, ",") != "a,b" {
		t.Fatalf("release: %v %v", going, err)
	}
	for _, m := range []*member{a, b} {
		if parked, _ := m.state(); parked {
			t.Errorf("%s still parked", m.name)
		}
	}
	r := s.of(event.AccountResumed)
	if len(r) != 1 || r[0]["by"] != "person" || r[0]["via"] != "cli" || r[0]["account"] != "work" || r[0]["parked_for"] != "1m0s" {
		t.Errorf("account_resumed %v", r)
	}
	clk.Advance(5 * time.Hour) // the old plan's timer does nothing
	if n := len(s.of(event.AccountResumed)); n != 1 {
		t.Errorf("%d account_resumed", n)
	}
	if _, err := acc.Release("work", "cli"); err == nil || !strings.Contains(err.Error(), "account work is not parked") {
		t.Errorf("release of nothing: %v", err)
	}
	acc.Limit("b", session.LimitSign{Reset: clk.Now().Add(4 * time.Hour), Exact: true, Source: session.SourceStatusLine})
	if going, err := acc.Release("b", "page"); err != nil || strings.Join(going, ",") != "b" {
		t.Errorf("release of b's own park: %v %v", going, err)
	}
	if parked, _ := b.state(); parked {
		t.Error("b still parked")
	}
	if r := s.of(event.AccountResumed); len(r) != 2 || r[1]["via"] != "page" || strings.Join(anyStrings(r[1]["agents"]), ",") != "b" {
		t.Errorf("account_resumed %v", r)
	}
	if _, err := acc.Release("nobody", "cli"); err == nil {
		t.Error("release of no account")
	}
	acc.Close()
}

func anyStrings(v any) []string {
	if s, ok := v.([]string); ok {
		return s
	}
	return nil
}
