//go:build !e2e

package account

import (
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/session"
)

// member is an account's member that notes what it was told.
type member struct {
	name string

	mu     sync.Mutex
	until  time.Time // its last park's plan
	parked bool
	parks  int
}

func (m *member) Name() string { return m.name }

func (m *member) Park(until time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.until, m.parked = until, true
	m.parks++
}

func (m *member) Unpark() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.parked = false
}

func (m *member) state() (bool, time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.parked, m.until
}

// said is what the accounts wrote, in order.
type said struct {
	mu     sync.Mutex
	events []map[string]any
}

func (s *said) emit(name, agent string, kv ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := map[string]any{"event": name, "agent": agent}
	for i := 0; i+1 < len(kv); i += 2 {
		e[kv[i].(string)] = kv[i+1]
	}
	s.events = append(s.events, e)
}

func (s *said) of(name string) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, e := range s.events {
		if e["event"] == name {
			out = append(out, e)
		}
	}
	return out
}

func newTestAccounts(clk clock.Clock, s *said, exit func(string)) *Accounts {
	return NewAccounts(AccountsConfig{Clock: clk, Log: hclog.NewNullLogger(), OnLimit: config.OnLimitWait,
		Timers: &session.Timers{UsageLimitWait: time.Hour, UsageLimitMargin: 30 * time.Second},
		Emit:   s.emit, Printf: func(string, string, ...any) {}, Exit: exit})
}

// The reset each kind of sign gives decides when the account goes on: a
// clock shown to the minute counts as the end of that minute (the CLIs
// round down: Gemini CLI showed 1:56 for a reset at 1:57:00), so a
// shown time just past is not "now"; a structured reset is to the
// second; none is usage_limit_wait. Every member is parked at once with
// the same plan, and resumed together when it is due. A sign of an agent's
// own tree (a status line, a hook) parks the account once a second agent
// of it says so too.
func TestAccountPlansTheResetBySign(t *testing.T) {
	start := time.Date(2026, 11, 26, 1, 56, 1, 0, time.UTC)
	cases := []struct {
		name  string
		sign  session.LimitSign
		until time.Time
	}{
		{"a minute shown, just past", session.LimitSign{Reset: start.Truncate(time.Minute), Source: session.SourceDialog},
			time.Date(2026, 11, 26, 1, 57, 30, 0, time.UTC)},
		{"a minute shown, to come", session.LimitSign{Reset: time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC), Source: session.SourceBanner},
			time.Date(2026, 11, 26, 3, 1, 30, 0, time.UTC)},
		{"to the second", session.LimitSign{Reset: start.Add(95 * time.Second), Exact: true, Source: session.SourceStatusLine},
			start.Add(125 * time.Second)},
		{"no reset", session.LimitSign{Source: session.SourceStopFailure}, start.Add(time.Hour)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := clock.NewFake(start)
			var s said
			acc := newTestAccounts(clk, &s, nil)
			a, b, other := &member{name: "a"}, &member{name: "b"}, &member{name: "c"}
			acc.Add("work", a)
			acc.Add("work", b)
			acc.Add("", other)
			acc.Limit("a", c.sign)
			if !c.sign.Proof() {
				if parked, _ := b.state(); parked {
					t.Fatal("one agent's own word parked its account")
				}
				acc.Limit("b", c.sign)
			}
			for _, m := range []*member{a, b} {
				if parked, until := m.state(); !parked || !until.Equal(c.until) {
					t.Errorf("%s: parked %v until %s, want until %s", m.name, parked, until, c.until)
				}
			}
			if parked, _ := other.state(); parked {
				t.Error("an agent of no account was parked with the account")
			}
			clk.Advance(sayWait) // a park without a reset is said after sayWait
			if e := s.of(event.AccountParked); len(e) != 1 || e[0]["source"] != c.sign.Source {
				t.Errorf("account_parked %v", e)
			}
			clk.Advance(c.until.Sub(clk.Now()) - time.Millisecond)
			if parked, _ := a.state(); !parked || len(s.of(event.AccountResumed)) != 0 {
				t.Fatal("resumed before its plan")
			}
			clk.Advance(time.Millisecond)
			pa, _ := a.state()
			pb, _ := b.state()
			if pa || pb || len(s.of(event.AccountResumed)) != 1 {
				t.Errorf("at its plan: a parked %v, b parked %v, %d account_resumed", pa, pb, len(s.of(event.AccountResumed)))
			}
		})
	}
}

// A sign without a reset (Claude Code's StopFailure hook, on two agents of
// the account) parks the account at once, and account_parked waits for the
// better sign that follows (a status line's resets_at, seconds later on a
// loaded machine), which also moves the plan; the event says when the park
// began; a later sign that says no better changes nothing.
func TestAccountSaysTheParkWithTheBetterReset(t *testing.T) {
	start := time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	var s said
	var exits []string
	acc := newTestAccounts(clk, &s, func(why string) { exits = append(exits, why) })
	a, b, solo := &member{name: "a"}, &member{name: "b"}, &member{name: "p"}
	acc.Add("work", a)
	acc.Add("work", b)
	acc.Add("", solo)
	acc.Limit("b", session.LimitSign{Source: session.SourceStopFailure, Text: "the turn ended on a rate limit"})
	acc.Limit("a", session.LimitSign{Source: session.SourceStopFailure, Text: "the turn ended on a rate limit"})
	acc.Limit("p", session.LimitSign{Source: session.SourceStopFailure, Text: "the turn ended on a rate limit"})
	if parked, _ := b.state(); !parked || len(s.of(event.AccountParked)) != 0 {
		t.Fatalf("b parked %v, account_parked %v: want parked at once, said later", parked, s.of(event.AccountParked))
	}
	clk.Advance(3 * time.Second)
	if len(s.of(event.AccountParked)) != 0 {
		t.Fatalf("account_parked said 3 s after a sign without a reset: %v", s.of(event.AccountParked))
	}
	reset := start.Add(2 * time.Hour)
	acc.Limit("a", session.LimitSign{Reset: reset, Exact: true, Source: session.SourceStatusLine})
	acc.Limit("b", session.LimitSign{Reset: start.Add(3 * time.Hour).Truncate(time.Minute), Source: session.SourceBanner})
	clk.Advance(2 * time.Second)
	e := s.of(event.AccountParked)
	if len(e) != 1 || e[0]["resets_at"] != reset.Format(time.RFC3339) || e[0]["source"] != session.SourceStopFailure || e[0]["agent"] != "a" ||
		e[0]["since"] != start.Format(time.RFC3339Nano) {
		t.Errorf("account_parked %v", e)
	}
	if _, until := b.state(); !until.Equal(reset.Add(30 * time.Second)) {
		t.Errorf("b parked until %s, want the status line's reset + 30 s", until)
	}
	// An agent of no account whose sign gave no reset: said after sayWait,
	// from when it was paused.
	if w := s.of(event.UsageLimitWait); len(w) != 1 || w[0]["agent"] != "p" || w[0]["since"] != start.Format(time.RFC3339Nano) {
		t.Errorf("usage_limit_wait %v", w)
	}
	if len(exits) != 0 {
		t.Errorf("on_limit wait ended the run: %v", exits)
	}
	acc.Close()
}

// slowMember's first Unpark waits until released: the account's resume is
// still telling its members when a new limit parks the account again.
type slowMember struct {
	member
	entered, release chan struct{}
	once             sync.Once
}

func (m *slowMember) Unpark() {
	m.once.Do(func() {
		close(m.entered)
		<-m.release
	})
	m.member.Unpark()
}

// A limit that comes while the account's resume is still telling its
// members leaves every member parked: the members are told the account's
// orders in the order the account took them (the simulation found an
// agent unparked, and asked for checkpoints, while its account was parked
// again, seed 1397).
func TestALimitDuringAResumeLeavesEveryMemberParked(t *testing.T) {
	start := time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	var s said
	acc := newTestAccounts(clk, &s, nil)
	slow := &slowMember{member: member{name: "a"}, entered: make(chan struct{}), release: make(chan struct{})}
	b := &member{name: "b"}
	acc.Add("work", slow)
	acc.Add("work", b)
	acc.Limit("a", session.LimitSign{Reset: start.Add(time.Minute), Exact: true, Source: session.SourceBanner})
	resumed := make(chan struct{})
	go func() { // the plan's timer: the reset plus the margin
		clk.Advance(time.Minute + 30*time.Second)
		close(resumed)
	}()
	<-slow.entered // the resume is telling a
	parkedAgain := make(chan struct{})
	go func() {
		acc.Limit("b", session.LimitSign{Reset: clk.Now().Add(time.Hour), Exact: true, Source: session.SourceBanner})
		close(parkedAgain)
	}()
	select {
	case <-parkedAgain: // the new park's orders went out before the resume's were done
	case <-time.After(100 * time.Millisecond):
	}
	close(slow.release)
	<-resumed
	<-parkedAgain
	for _, m := range []*member{&slow.member, b} {
		if parked, _ := m.state(); !parked {
			t.Errorf("%s is not parked, while its account is parked again until the new reset", m.name)
		}
	}
}

// A park carried over from a warden killed mid-park (Carry: state.json's
// paused_until, with the agents taken back from the holder) parks every
// member of the account on one agent's carry — warden's own word, not the
// agent's — until that same plan, said as account_parked with the source
// carried_over, and resumes them at it.
func TestACarriedParkKeepsItsPlan(t *testing.T) {
	start := time.Date(2026, 12, 7, 2, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	var s said
	acc := newTestAccounts(clk, &s, nil)
	a, b := &member{name: "a"}, &member{name: "b"}
	acc.Add("work", a)
	acc.Add("work", b)
	until := start.Add(10 * time.Minute)
	acc.Carry("a", until)
	for _, m := range []*member{a, b} {
		if parked, u := m.state(); !parked || !u.Equal(until) {
			t.Errorf("%s: parked %v until %s, want until %s", m.name, parked, u, until)
		}
	}
	if e := s.of(event.AccountParked); len(e) != 1 || e[0]["source"] != session.SourceCarried {
		t.Errorf("account_parked %v", e)
	}
	clk.Advance(until.Sub(start) - time.Millisecond)
	if parked, _ := b.state(); !parked {
		t.Fatal("resumed before the plan carried over")
	}
	clk.Advance(time.Millisecond)
	if parked, _ := b.state(); parked || len(s.of(event.AccountResumed)) != 1 {
		t.Errorf("at the plan: b parked %v, %d account_resumed", parked, len(s.of(event.AccountResumed)))
	}
}
