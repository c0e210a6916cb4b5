// Package account parks the agents that share an account together at its
// usage limit and resumes them at its reset (DESIGN §6 "Account"): a plain
// object on an injected clock that knows its members only as Members (it
// imports nothing of the agent).
package account

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/session"
)

// Accounts park the agents that share an account together at its usage
// limit (DESIGN §6 "Account"): the first sign on any of them — a CLI's
// structured windows, its hook, its banner or limit dialog — parks every
// agent of the account at once, until the reset the best sign gave (a
// structured one, to the second, over a banner's minute, over none: then
// usage_limit_wait) plus a margin; then each carries on. With on_limit =
// "checkpoint-exit" the run ends instead: a team checkpoint, exit 0. A
// plain object on an injected clock; its members are the agents.
type Accounts struct {
	c       AccountsConfig
	mu      sync.Mutex
	byAgent map[string]*account
}

// AccountsConfig is what accounts run by, and what they do besides parking
// their members.
type AccountsConfig struct {
	Clock clock.Clock
	Log   hclog.Logger
	// Timers give UsageLimitWait (how long an account stays parked when no
	// sign gave a reset) and UsageLimitMargin (added to a reset before the
	// agents go on), read at each park.
	Timers  *session.Timers
	OnLimit string // config.OnLimitWait or config.OnLimitCheckpointExit
	// Emit writes an event about agent; Printf a progress line.
	Emit   func(name, agent string, kv ...any)
	Printf func(agent, format string, a ...any)
	// Exit ends the run at the limit (on_limit = "checkpoint-exit"): a team
	// checkpoint, then exit 0.
	Exit func(reason string)
}

// Member is an agent as its account sees it.
type Member interface {
	Name() string
	Park(until time.Time) // hold it (and its sessions to come) until Unpark
	Unpark()
}

// account is one account and its park.
type account struct {
	name    string
	solo    bool // an agent of no account (plain): parked alone, usage_limit_wait
	members []Member

	parked bool
	said   bool // the park's event is written
	first  session.LimitSign
	seenBy string // the agent the first sign came from
	since  time.Time
	reset  time.Time // zero: no sign said
	rank   int       // how good the sign that gave reset is (rankOf)
	source string
	until  time.Time // when the agents go on
	gen    int       // plans made: a timer of an older plan does nothing
	timer  clock.Timer

	// orders is held while the members are told the account's order
	// (tell): a resume and a new park never cross on their way.
	orders sync.Mutex
}

// NewAccounts returns accounts with no member.
func NewAccounts(c AccountsConfig) *Accounts {
	return &Accounts{c: c, byAgent: map[string]*account{}}
}

// Add makes m a member of the account named name ("": an account of its
// own, for an agent of none).
func (a *Accounts) Add(name string, m Member) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var acc *account
	for _, o := range a.byAgent {
		if !o.solo && name != "" && o.name == name {
			acc = o
		}
	}
	if acc == nil {
		acc = &account{name: name, solo: name == ""}
	}
	acc.members = append(acc.members, m)
	a.byAgent[m.Name()] = acc
}

// Limit is a sign of the usage limit of agent's account, seen on agent:
// the first parks every agent of the account at once; a later one with a
// better reset re-plans the park. The park is said (account_parked, a
// WARNING; with on_limit = "checkpoint-exit" the run's end) with the best
// reset known: at once when the first sign gives one, else once a better
// sign comes or sayWait has passed — Claude Code's StopFailure hook, which
// gives no time, comes a moment before its status line, which does.
func (a *Accounts) Limit(agent string, l session.LimitSign) {
	now := a.c.Clock.Now()
	a.mu.Lock()
	acc := a.byAgent[agent]
	if acc == nil {
		a.mu.Unlock()
		return
	}
	rank := rankOf(l)
	switch {
	case !acc.parked:
		acc.parked, acc.since, acc.said = true, now, false
		acc.reset, acc.rank, acc.source, acc.first, acc.seenBy = l.Reset, rank, l.Source, l, agent
		a.plan(acc, now)
		if rank == 1 {
			gen := acc.gen
			a.c.Clock.AfterFunc(sayWait, func() { a.sayLate(acc, gen) })
		}
	case rank > acc.rank:
		acc.reset, acc.rank, acc.source = l.Reset, rank, l.Source
		a.plan(acc, now)
		a.c.Log.Info("usage limit: a better reset", "account", acc.name, "source", l.Source, "reset", l.Reset, "until", acc.until)
	default:
		a.mu.Unlock()
		return // parked already, and this says no better
	}
	until := acc.until
	say := !acc.said && acc.rank > 1
	if say {
		acc.said = true
		a.parkedSaid(acc)
	}
	a.mu.Unlock()
	a.tell(acc)
	if say && a.c.OnLimit == config.OnLimitCheckpointExit {
		a.exit(acc, until)
	}
}

// tell gives every member of acc the account's order as it is now —
// parked until its plan, or free — holding acc.orders, so that the last
// order any member hears is the account's last (a limit coming while a
// resume tells the members would otherwise leave some of them free).
func (a *Accounts) tell(acc *account) {
	acc.orders.Lock()
	defer acc.orders.Unlock()
	a.mu.Lock()
	parked, until, members := acc.parked, acc.until, slices.Clone(acc.members)
	a.mu.Unlock()
	for _, m := range members {
		if parked {
			m.Park(until)
		} else {
			m.Unpark()
		}
	}
}

// sayWait is how long the park of a sign that gave no reset waits for one
// that does before it is said without. Claude Code's status line follows
// its StopFailure hook by well under a second on an idle machine; on a
// loaded one (the status line is a command Claude spawns) by seconds. The
// agents are parked at the first sign all the same: only the event waits,
// and it says when the park began (since).
const sayWait = 5 * time.Second

// sayLate says a park whose first sign gave no reset, if no better sign
// said it meanwhile (gen: the park's plan then; a re-plan said it).
func (a *Accounts) sayLate(acc *account, gen int) {
	a.mu.Lock()
	if !acc.parked || acc.said || acc.gen != gen {
		a.mu.Unlock()
		return
	}
	acc.said = true
	a.parkedSaid(acc)
	until := acc.until
	a.mu.Unlock()
	if a.c.OnLimit == config.OnLimitCheckpointExit {
		a.exit(acc, until)
	}
}

// rankOf is how good a sign's reset is: to the second over a clock's
// minute, over none.
func rankOf(l session.LimitSign) int {
	switch {
	case l.Reset.IsZero():
		return 1
	case l.Exact:
		return 3
	}
	return 2
}

// plan sets when acc's agents go on — the reset (the end of a minute
// shown) plus the margin, or usage_limit_wait from now without one (never
// sooner than the margin) — and, unless the run ends at the limit, the
// timer that resumes them.
func (a *Accounts) plan(acc *account, now time.Time) {
	wait, margin := a.c.Timers.UsageLimitWait, a.c.Timers.UsageLimitMargin
	acc.until = now.Add(wait)
	if !acc.reset.IsZero() {
		acc.until = latest(resetEnd(acc.reset, acc.rank).Add(margin), now.Add(margin))
	}
	acc.gen++
	if acc.timer != nil {
		acc.timer.Stop()
		acc.timer = nil
	}
	if a.c.OnLimit == config.OnLimitCheckpointExit {
		return
	}
	gen := acc.gen
	acc.timer = a.c.Clock.AfterFunc(acc.until.Sub(now), func() { a.resume(acc, gen) })
}

// resetEnd is the latest the limit may reset, by a sign's reset of the
// given rank: a clock shown to the minute stands for any time in that
// minute (the CLIs round down: Gemini CLI shows "1:56" for a reset at
// 1:57:00 it was told 60 s before), so its end; a reset to the second is
// itself.
func resetEnd(reset time.Time, rank int) time.Time {
	if rank == 2 {
		return reset.Truncate(time.Minute).Add(time.Minute)
	}
	return reset
}

// parkedSaid writes the park's event and line (a.mu held): the first
// sign's source and text, the best reset known.
func (a *Accounts) parkedSaid(acc *account) {
	names, l, agent := acc.names(), acc.first, acc.seenBy
	a.c.Log.Warn("usage limit: account parked", "account", acc.name, "agents", names, "source", l.Source,
		"reset", acc.reset, "until", acc.until, "seen_by", agent)
	if acc.solo {
		a.c.Emit(event.UsageLimitWait, agent, "until", acc.until.UTC().Format(time.RFC3339), "reset", rfc3339(acc.reset),
			"since", acc.since.UTC().Format(time.RFC3339Nano), "text", l.Text, "source", l.Source)
		a.c.Printf(agent, "WARNING: %s hit a usage limit; waiting until %s\n", agent, clockTime(acc.until))
		return
	}
	a.c.Emit(event.AccountParked, agent, "account", acc.name, "agents", names, "resets_at", rfc3339(acc.reset),
		"until", acc.until.UTC().Format(time.RFC3339), "since", acc.since.UTC().Format(time.RFC3339Nano),
		"source", l.Source, "text", l.Text)
	a.c.Printf(agent, "WARNING: account %s is at its usage limit (%s on %s): %s parked until %s\n",
		acc.name, l.Source, agent, strings.Join(names, ", "), clockTime(acc.until))
}

// exit ends the run at the limit (on_limit = "checkpoint-exit").
func (a *Accounts) exit(acc *account, until time.Time) {
	reset := "an hour from now (no reset given)"
	if !acc.reset.IsZero() {
		reset = clockTime(acc.reset)
	}
	a.c.Printf("", "WARNING: account %s is at its usage limit until %s: on_limit = \"checkpoint-exit\": team checkpoint, then exit; `warden run` after %s carries the run on\n",
		acc.name, reset, clockTime(until))
	a.c.Exit(fmt.Sprintf("account %s is at its usage limit until %s", acc.name, reset))
}

// Over: agent's CLI went on by itself after its limit's reset (Claude
// Code's own continue): its account goes on now, unless its reset is
// still to come.
func (a *Accounts) Over(agent string) {
	now := a.c.Clock.Now()
	a.mu.Lock()
	acc := a.byAgent[agent]
	if acc == nil || !acc.parked || now.Before(acc.reset) || a.c.OnLimit == config.OnLimitCheckpointExit {
		a.mu.Unlock()
		return
	}
	gen := acc.gen
	a.mu.Unlock()
	a.c.Log.Info("usage limit over: the CLI went on by itself", "account", acc.name, "agent", agent)
	a.resume(acc, gen)
}

// resume lets acc's agents go on (the plan of generation gen is due).
func (a *Accounts) resume(acc *account, gen int) {
	now := a.c.Clock.Now()
	a.mu.Lock()
	if !acc.parked || acc.gen != gen {
		a.mu.Unlock()
		return
	}
	if !acc.said { // resumed within sayWait: the park is said first
		acc.said = true
		a.parkedSaid(acc)
	}
	acc.parked, acc.timer = false, nil
	names := acc.names()
	parkedFor := now.Sub(acc.since).Round(time.Second)
	a.mu.Unlock()
	a.c.Log.Info("usage limit over: account resumed", "account", acc.name, "parked_for", parkedFor)
	if !acc.solo {
		a.c.Emit(event.AccountResumed, "", "account", acc.name, "agents", names, "resets_at", rfc3339(acc.reset),
			"parked_for", parkedFor.String())
		a.c.Printf("", "account %s: its usage limit reset; %s carry on\n", acc.name, strings.Join(names, ", "))
	}
	a.tell(acc)
}

// Close stops every plan's timer (the team is done).
func (a *Accounts) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, acc := range a.byAgent {
		if acc.timer != nil {
			acc.timer.Stop()
			acc.timer = nil
		}
	}
}

func (acc *account) names() []string {
	out := make([]string, len(acc.members))
	for i, m := range acc.members {
		out[i] = m.Name()
	}
	return out
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// clockTime is a time as progress lines show it.
func clockTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05 MST") }

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
