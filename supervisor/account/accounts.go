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
// limit (DESIGN §6 "Account"), on proof (issue 33): a sign the agent's own
// process tree can send — its hooks, its status line, its app-server's
// rate-limit windows — parks that agent alone, until the reset it names
// (bounded by its window) or until something it cannot forge agrees: its
// CLI's screen showing the limit (a banner or limit dialog, on any agent
// of the account), or another agent of the account reporting it. Then
// every agent of the account is parked at once, until the reset the best
// agreeing sign gave (a structured one, to the second, over a banner's
// minute, over none: then usage_limit_wait) plus a margin; then each
// carries on. With on_limit = "checkpoint-exit" the run ends instead — on
// proof only. A person's `warden resume --account` (Release) ends a park
// at once. A plain object on an injected clock; its members are the agents.
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

// park is one park: an account's (every member), or one member's alone on
// its own word.
type park struct {
	on     bool
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
}

// account is one account and its parks.
type account struct {
	name    string
	solo    bool // an agent of no account (plain): parked alone, usage_limit_wait
	members []Member

	park             // the account's: every member, on proof
	proof  string    // what proved the limit ("banner on a", "a and b")
	proved time.Time // when it did: every member parked from then
	// own are the members parked alone, on a sign of their own tree no
	// proof has joined yet, by name.
	own map[string]*park

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
		acc = &account{name: name, solo: name == "", own: map[string]*park{}}
	}
	acc.members = append(acc.members, m)
	a.byAgent[m.Name()] = acc
}

// Limit is a sign of the usage limit of agent's account, seen on agent. A
// sign its own tree could have sent parks agent alone (a better one re-plans
// that park); a proof — its CLI's screen, or a second agent of the account
// — parks every agent of the account at once; once parked, a later sign
// with a better reset re-plans the account's park. A park is said
// (account_parked or usage_limit_wait, a WARNING; with on_limit =
// "checkpoint-exit" and proof, the run's end) with the best reset known: at
// once when its first sign gives one, else once a better sign comes or
// sayWait has passed — Claude Code's StopFailure hook, which gives no time,
// comes a moment before its status line, which does.
func (a *Accounts) Limit(agent string, l session.LimitSign) {
	now := a.c.Clock.Now()
	a.mu.Lock()
	acc := a.byAgent[agent]
	if acc == nil {
		a.mu.Unlock()
		return
	}
	rank := rankOf(l)
	said := false
	switch {
	case acc.on:
		if rank <= acc.rank {
			a.mu.Unlock()
			return // parked already, and this says no better
		}
		acc.reset, acc.rank, acc.source = l.Reset, rank, l.Source
		a.plan(acc, now)
		a.c.Log.Info("usage limit: a better reset", "account", acc.name, "source", l.Source, "reset", l.Reset, "until", acc.until)
	case l.Proof() || acc.agrees(agent, now):
		a.parkAccount(acc, agent, l, now)
		said = acc.said // a plain agent's own park, said already: the run ends all the same
	default:
		a.ownSign(acc, agent, l, now) // unlocks
		return
	}
	until := acc.until
	say := !acc.said && acc.rank > 1
	if say {
		acc.said = true
		a.parkedSaid(acc)
	}
	a.mu.Unlock()
	a.tell(acc)
	if (say || said) && a.c.OnLimit == config.OnLimitCheckpointExit {
		a.exit(acc, until)
	}
}

// Carry parks agent's account again until until, the plan of the park a
// warden killed before the reset had made (state.json's paused_until):
// its agents were taken back from the holder mid-park. Said as any park,
// with the source carried_over.
func (a *Accounts) Carry(agent string, until time.Time) {
	a.Limit(agent, session.LimitSign{Reset: until.Add(-a.c.Timers.UsageLimitMargin), Exact: true,
		Source: session.SourceCarried, Text: "parked until " + until.UTC().Format(time.RFC3339) + " by the warden before this one"})
}

// agrees reports whether another member than agent is parked on its own
// word of a limit not yet reset at now (a.mu held): two agents of the
// account saying so are proof.
func (acc *account) agrees(agent string, now time.Time) bool {
	for name, p := range acc.own {
		if name != agent && p.current(now) {
			return true
		}
	}
	return false
}

// current reports whether p parks on a limit still on at now: its reset
// (none said: any) is still to come. A park in its margin after the reset
// is over as a sign.
func (p *park) current(now time.Time) bool {
	return p.on && (p.reset.IsZero() || resetEnd(p.reset, p.rank).After(now))
}

// parkAccount parks every member of acc on proof l, seen on agent (a.mu
// held): the reset is the best of l's and of the members' own parks' that
// agree with it (within its minute, when l is a screen's clock), the
// earliest among equals — so that no agent's own word moves the account's
// reset past what the proof shows. The members' own parks end in it.
func (a *Accounts) parkAccount(acc *account, agent string, l session.LimitSign, now time.Time) {
	acc.on, acc.said, acc.since, acc.proved = true, false, now, now
	acc.first, acc.seenBy, acc.source = l, agent, l.Source
	acc.reset, acc.rank = l.Reset, rankOf(l)
	acc.proof = l.Source + " on " + agent
	var others []string
	for name, p := range acc.own {
		if p.timer != nil {
			p.timer.Stop()
		}
		if !p.current(now) {
			continue // a limit over already: its park ends here
		}
		if p.since.Before(acc.since) {
			acc.since = p.since
		}
		if name != agent {
			others = append(others, name)
		} else if acc.solo && p.said {
			acc.said = true // said once: usage_limit_wait
		}
		if l.Proof() && !l.Reset.IsZero() && !agreeing(l, p.reset) {
			continue // a reset the screen does not show
		}
		if p.rank > acc.rank || (p.rank == acc.rank && !p.reset.IsZero() && p.reset.Before(acc.reset)) {
			acc.reset, acc.rank = p.reset, p.rank
		}
	}
	if !l.Proof() {
		slices.Sort(others)
		acc.proof = strings.Join(append(others, agent), " and ") + " said so"
	}
	clear(acc.own)
	a.plan(acc, now)
	if acc.rank == 1 && !acc.said {
		gen := acc.gen
		a.c.Clock.AfterFunc(sayWait, func() { a.sayLate(acc, gen) })
	}
}

// agreeing reports whether reset, a member's own, agrees with a screen's
// proof l: within the minute it shows, give or take one.
func agreeing(l session.LimitSign, reset time.Time) bool {
	if reset.IsZero() {
		return true
	}
	lo, hi := l.Reset.Truncate(time.Minute).Add(-time.Minute), resetEnd(l.Reset, rankOf(l)).Add(time.Minute)
	return !reset.Before(lo) && !reset.After(hi)
}

// ownSign parks agent alone on a sign its own tree could have sent (a.mu
// held; it unlocks it): until that sign's reset, bounded by its window,
// and said as usage_limit_wait.
func (a *Accounts) ownSign(acc *account, agent string, l session.LimitSign, now time.Time) {
	rank := rankOf(l)
	p := acc.own[agent]
	switch {
	case p == nil || !p.on:
		p = &park{on: true, since: now, reset: l.Reset, rank: rank, source: l.Source, first: l, seenBy: agent}
		acc.own[agent] = p
		a.planOwn(acc, agent, p, now)
		if rank == 1 {
			gen := p.gen
			a.c.Clock.AfterFunc(sayWait, func() { a.sayOwnLate(acc, agent, p, gen) })
		}
	case rank > p.rank:
		p.reset, p.rank, p.source = l.Reset, rank, l.Source
		a.planOwn(acc, agent, p, now)
		a.c.Log.Info("usage limit of one agent: a better reset", "agent", agent, "source", l.Source, "reset", l.Reset, "until", p.until)
	default:
		a.mu.Unlock()
		return
	}
	if !p.said && p.rank > 1 {
		p.said = true
		a.ownSaid(acc, p)
	}
	a.mu.Unlock()
	a.tell(acc)
}

// tell gives every member of acc the account's order as it is now —
// parked until its plan, or alone until its own, or free — holding
// acc.orders, so that the last order any member hears is the account's
// last (a limit coming while a resume tells the members would otherwise
// leave some of them free).
func (a *Accounts) tell(acc *account) {
	acc.orders.Lock()
	defer acc.orders.Unlock()
	a.mu.Lock()
	parked, until, members := acc.on, acc.until, slices.Clone(acc.members)
	own := map[string]time.Time{}
	for name, p := range acc.own {
		if p.on {
			own[name] = p.until
		}
	}
	a.mu.Unlock()
	for _, m := range members {
		switch u, alone := own[m.Name()]; {
		case parked:
			m.Park(until)
		case alone:
			m.Park(u)
		default:
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
	if !acc.on || acc.said || acc.gen != gen {
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

// sayOwnLate is sayLate of agent's own park.
func (a *Accounts) sayOwnLate(acc *account, agent string, p *park, gen int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if acc.own[agent] != p || !p.on || p.said || p.gen != gen {
		return
	}
	p.said = true
	a.ownSaid(acc, p)
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

// plan sets when acc's agents go on (planned) and, unless the run ends at
// the limit, the timer that resumes them.
func (a *Accounts) plan(acc *account, now time.Time) {
	a.planned(&acc.park, now)
	if a.c.OnLimit == config.OnLimitCheckpointExit {
		return
	}
	gen := acc.gen
	acc.timer = a.c.Clock.AfterFunc(acc.until.Sub(now), func() { a.resume(acc, gen, "") })
}

// planOwn sets when agent, parked alone, goes on, and the timer that
// resumes it (its own word never ends the run).
func (a *Accounts) planOwn(acc *account, agent string, p *park, now time.Time) {
	a.planned(p, now)
	gen := p.gen
	p.timer = a.c.Clock.AfterFunc(p.until.Sub(now), func() { a.resumeOwn(acc, agent, p, gen) })
}

// planned sets p's until — the reset (the end of a minute shown) plus the
// margin, or usage_limit_wait from now without one (never sooner than the
// margin) — and stops its timer.
func (a *Accounts) planned(p *park, now time.Time) {
	wait, margin := a.c.Timers.UsageLimitWait, a.c.Timers.UsageLimitMargin
	p.until = now.Add(wait)
	if !p.reset.IsZero() {
		p.until = latest(resetEnd(p.reset, p.rank).Add(margin), now.Add(margin))
	}
	p.gen++
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
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

// parkedSaid writes the park's event and line (a.mu held): the sign that
// proved it, what proved it, the best reset known.
func (a *Accounts) parkedSaid(acc *account) {
	names, l, agent := acc.names(), acc.first, acc.seenBy
	a.c.Log.Warn("usage limit: account parked", "account", acc.name, "agents", names, "source", l.Source,
		"reset", acc.reset, "until", acc.until, "seen_by", agent, "proof", acc.proof)
	if acc.solo {
		a.c.Emit(event.UsageLimitWait, agent, "until", acc.until.UTC().Format(time.RFC3339), "reset", rfc3339(acc.reset),
			"since", acc.since.UTC().Format(time.RFC3339Nano), "text", l.Text, "source", l.Source)
		a.c.Printf(agent, "WARNING: %s hit a usage limit; waiting until %s\n", agent, clockTime(acc.until))
		return
	}
	a.c.Emit(event.AccountParked, agent, "account", acc.name, "agents", names, "resets_at", rfc3339(acc.reset),
		"until", acc.until.UTC().Format(time.RFC3339), "since", acc.since.UTC().Format(time.RFC3339Nano),
		"proved", acc.proved.UTC().Format(time.RFC3339Nano), "source", l.Source, "text", l.Text, "proof", acc.proof)
	a.c.Printf(agent, "WARNING: account %s is at its usage limit (%s): %s parked until %s\n",
		acc.name, acc.proof, strings.Join(names, ", "), clockTime(acc.until))
}

// ownSaid writes the event and line of an agent parked alone on its own
// word (a.mu held).
func (a *Accounts) ownSaid(acc *account, p *park) {
	l, agent := p.first, p.seenBy
	a.c.Log.Warn("usage limit of one agent, on its own word: it alone is parked", "account", acc.name, "agent", agent,
		"source", l.Source, "reset", p.reset, "until", p.until)
	kv := []any{"until", p.until.UTC().Format(time.RFC3339), "reset", rfc3339(p.reset),
		"since", p.since.UTC().Format(time.RFC3339Nano), "text", l.Text, "source", p.source}
	if acc.solo {
		a.c.Emit(event.UsageLimitWait, agent, kv...)
		a.c.Printf(agent, "WARNING: %s hit a usage limit; waiting until %s\n", agent, clockTime(p.until))
		return
	}
	a.c.Emit(event.UsageLimitWait, agent, append(kv, "account", acc.name, "alone", true)...)
	a.c.Printf(agent, "WARNING: %s says it hit its usage limit (%s): it alone waits until %s; the other agents of account %s "+
		"go on until its screen or another of them shows the limit\n", agent, p.source, clockTime(p.until), acc.name)
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
// Code's own continue): its account goes on now, or it alone when parked
// alone, unless its reset is still to come.
func (a *Accounts) Over(agent string) {
	now := a.c.Clock.Now()
	a.mu.Lock()
	acc := a.byAgent[agent]
	if acc == nil {
		a.mu.Unlock()
		return
	}
	if p := acc.own[agent]; !acc.on && p != nil && p.on && !now.Before(p.reset) {
		gen := p.gen
		a.mu.Unlock()
		a.resumeOwn(acc, agent, p, gen)
		return
	}
	if !acc.on || now.Before(acc.reset) || a.c.OnLimit == config.OnLimitCheckpointExit {
		a.mu.Unlock()
		return
	}
	gen := acc.gen
	a.mu.Unlock()
	a.c.Log.Info("usage limit over: the CLI went on by itself", "account", acc.name, "agent", agent)
	a.resume(acc, gen, "")
}

// resume lets acc's agents go on (the plan of generation gen is due; via
// "" is the plan, else the person's way: Release).
func (a *Accounts) resume(acc *account, gen int, via string) {
	now := a.c.Clock.Now()
	a.mu.Lock()
	if !acc.on || acc.gen != gen {
		a.mu.Unlock()
		return
	}
	if !acc.said { // resumed within sayWait: the park is said first
		acc.said = true
		a.parkedSaid(acc)
	}
	acc.on = false
	if acc.timer != nil {
		acc.timer.Stop()
		acc.timer = nil
	}
	names := acc.names()
	parkedFor := now.Sub(acc.since).Round(time.Second)
	a.mu.Unlock()
	a.c.Log.Info("usage limit over: account resumed", "account", acc.name, "parked_for", parkedFor, "by_person", via != "")
	switch {
	case via != "":
		a.c.Emit(event.AccountResumed, "", "account", acc.name, "agents", names, "resets_at", rfc3339(acc.reset),
			"parked_for", parkedFor.String(), "by", "person", "via", via)
	case !acc.solo:
		a.c.Emit(event.AccountResumed, "", "account", acc.name, "agents", names, "resets_at", rfc3339(acc.reset),
			"parked_for", parkedFor.String())
		a.c.Printf("", "account %s: its usage limit reset; %s carry on\n", acc.name, strings.Join(names, ", "))
	}
	a.tell(acc)
}

// resumeOwn lets agent, parked alone, go on (the plan of generation gen
// of its park p is due).
func (a *Accounts) resumeOwn(acc *account, agent string, p *park, gen int) {
	a.mu.Lock()
	if acc.own[agent] != p || !p.on || p.gen != gen {
		a.mu.Unlock()
		return
	}
	if !p.said {
		p.said = true
		a.ownSaid(acc, p)
	}
	delete(acc.own, agent)
	a.mu.Unlock()
	a.c.Log.Info("usage limit of one agent over: it carries on", "agent", agent)
	if !acc.solo {
		a.c.Printf(agent, "%s: the usage limit it reported is past; it carries on\n", agent)
	}
	a.tell(acc)
}

// Release ends at once, for a person (`warden resume --account`, the
// page: via), the park of the account named name — or of the account of
// the agent named name —, and every own park of its members: they go on,
// and account_resumed says by whom (by "person"). It returns the agents
// let go, or an error when none was parked.
func (a *Accounts) Release(name, via string) ([]string, error) {
	now := a.c.Clock.Now()
	a.mu.Lock()
	acc := a.byAgent[name]
	for _, o := range a.byAgent {
		if acc == nil && !o.solo && o.name == name && name != "" {
			acc = o
		}
	}
	if acc == nil {
		a.mu.Unlock()
		return nil, fmt.Errorf("no account or agent named %q", name)
	}
	var going []string
	if acc.on {
		going = acc.names()
	}
	since := acc.since
	for agent, p := range acc.own {
		if !p.on {
			continue
		}
		if !acc.on {
			going = append(going, agent)
			if since.IsZero() || p.since.Before(since) {
				since = p.since
			}
		}
		if p.timer != nil {
			p.timer.Stop()
		}
	}
	clear(acc.own)
	label := "account " + acc.name
	if acc.solo {
		label = "agent " + name
	}
	if len(going) == 0 {
		a.mu.Unlock()
		return nil, fmt.Errorf("%s is not parked at a usage limit", label)
	}
	slices.Sort(going)
	if acc.on {
		gen := acc.gen
		a.mu.Unlock()
		a.resume(acc, gen, via)
	} else {
		a.mu.Unlock()
		a.c.Emit(event.AccountResumed, "", "account", acc.name, "agents", going, "resets_at", "",
			"parked_for", now.Sub(since).Round(time.Second).String(), "by", "person", "via", via)
		a.tell(acc)
	}
	a.c.Log.Info("usage limit park released by a person", "account", label, "agents", going, "via", via)
	a.c.Printf("", "RESUMED: %s: %s go on (a person, via %s)\n", label, strings.Join(going, ", "), via)
	return going, nil
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
		for _, p := range acc.own {
			if p.timer != nil {
				p.timer.Stop()
				p.timer = nil
			}
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
