//go:build e2e

package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/testrig/proctest"
)

// The team's max_tokens with on_budget = "pause": at the budget every agent
// is parked — its process stopped, nothing typed, no checkpoint request —
// and budget_exceeded tells a person; `warden resume --max-tokens` (the
// control socket's resume) raises the budget and the agent spends again,
// up to the new budget, parked again; a plain `warden resume` lifts the
// budget for the run.
func TestTeamBudgetPausesUntilResume(t *testing.T) {
	defer proctest.AssertNone(t)
	team, out, wait := startTeam(t, `shutdown_timeout = "2s"
checkpoint_interval = "300ms"
checkpoint_timeout = "2s"
max_tokens = 20000
on_budget = "pause"
`+budgetTask, fakeAgent{name: "s", mode: "spender:in=1000:cached=500:write=200:out=100:every=100ms"})
	root := team.cfg.StateDir
	paused := func() bool {
		s, err := state.ReadSnapshot(root)
		return err == nil && s.Budget != nil && s.Budget.Paused
	}
	spent := func() int64 {
		u, _ := team.spendNow()
		if u == nil {
			return 0
		}
		return u.Tokens.Total()
	}
	waitFor(t, "the budget reached and the agent parked", paused)
	// What the agent wrote between the read that reached the budget and its
	// stop is read at the next poll (every 2 s).
	time.Sleep(2500 * time.Millisecond)
	held, requests := spent(), countEvents(eventsOf(t, team.cfg), event.CheckpointRequested, "")
	time.Sleep(2 * time.Second)
	if now := spent(); now != held || held < 20000 {
		t.Errorf("parked, the agent spent %d tokens, then %d (its budget 20000)", held, now)
	}
	if n := countEvents(eventsOf(t, team.cfg), event.CheckpointRequested, ""); n != requests {
		t.Errorf("%d checkpoint requests typed while parked", n-requests)
	}
	e := firstEvent(eventsOf(t, team.cfg), event.BudgetExceeded)
	if e == nil || e["budget"] != "team" || e["action"] != "pause" || e["limit"] != "max_tokens" {
		t.Errorf("budget_exceeded %v", e)
	}
	if !strings.Contains(out.String(), "every agent is parked; `warden resume` lets them go on") {
		t.Errorf("stdout:\n%s", out.String())
	}
	if snap := readSnapshot(t, root); !snap.Agents[0].BudgetHeld {
		t.Errorf("state.json: the agent is not held at the budget: %+v", snap.Agents[0])
	}
	md, _ := os.ReadFile(filepath.Join(root, "STATUS.md"))
	if !strings.Contains(string(md), "agents parked until `warden resume`") {
		t.Errorf("STATUS.md:\n%s", md)
	}

	c := control.NewClient(root)
	if _, err := c.Resume(control.ResumeRequest{MaxTokens: 1000}); err == nil || !strings.Contains(err.Error(), "raise it above that") {
		t.Errorf("a raise under what was spent: %v", err)
	}
	r, err := c.Resume(control.ResumeRequest{MaxTokens: held + 10000})
	if err != nil || len(r.Agents) != 1 || r.Agents[0] != "s" || r.Lifted || r.MaxTokens != held+10000 {
		t.Fatalf("resume: %+v %v", r, err)
	}
	// The hold is set before budget_exceeded is said (nothing is typed
	// past the budget), so the event is waited for too.
	waitFor(t, "the raised budget reached: parked again", func() bool {
		return spent() >= held+10000 && paused() && countEvents(eventsOf(t, team.cfg), event.BudgetExceeded, "") >= 2
	})
	evs := eventsOf(t, team.cfg)
	if n := countEvents(evs, event.BudgetExceeded, ""); n != 2 {
		t.Errorf("%d budget_exceeded, want 2", n)
	}
	// The raised budget is warned of at most once, below it: its 80–100 %
	// band is 2000 tokens, about 0.1 s of this agent's spending, so a read
	// (every 2 s, and at each record) may pass it whole — then only
	// budget_exceeded says so, as for the first budget.
	warned := 0
	for _, e := range evs {
		if e["event"] == event.CostWarning && e["max"] == fmt.Sprint(held+10000) {
			warned++
			if p, _ := e["percent"].(float64); p < 80 || p >= 100 {
				t.Errorf("cost_warning of the raised budget at %v %%: %v", e["percent"], e)
			}
		}
	}
	if warned > 1 || countEvents(evs, event.CostWarning, "") > 2 {
		t.Errorf("%d cost_warning of the raised budget, want at most 1: %v", warned, evs)
	}
	if e := firstEvent(evs, event.BudgetResumed); e == nil || e["via"] != "cli" || e["lifted"] != false {
		t.Errorf("budget_resumed %v", e)
	}
	if snap := readSnapshot(t, root); snap.Budget == nil || !snap.Budget.Raised || snap.Budget.MaxTokens != held+10000 {
		t.Errorf("state.json budget %+v", snap.Budget)
	}

	r, err = c.Resume(control.ResumeRequest{Via: "page"})
	if err != nil || !r.Lifted || len(r.Agents) != 1 {
		t.Fatalf("resume: %+v %v", r, err)
	}
	again := spent()
	waitFor(t, "the agent spending past the lifted budget", func() bool { return spent() > again+5000 })
	if _, err := c.Resume(control.ResumeRequest{}); err == nil {
		t.Error("a resume with nothing parked did not fail")
	}
	team.Stop(true)
	wait()
	snap := readSnapshot(t, root)
	if snap.Budget == nil || !snap.Budget.Lifted || snap.Budget.Paused || snap.Agents[0].BudgetHeld {
		t.Errorf("state.json budget %+v", snap.Budget)
	}
	if line := state.TeamSpend(snap.Usage, snap.Budget); !strings.Contains(line, "budget lifted by `warden resume`") {
		t.Errorf("team spend: %s", line)
	}
}

// A run that ended at the team's budget (checkpoint-exit) and is carried on
// ends again at once, its spend carried, with a team checkpoint; carried on
// with the team file's budget raised, it goes on past the old one.
func TestBudgetHoldsWhenTheRunIsCarriedOn(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `shutdown_timeout = "2s"
checkpoint_interval = "1s"
max_tokens = 8000
`+budgetTask, fakeAgent{name: "s", mode: "spender:in=1000:out=100:every=100ms"})
	res, _, _ := runTeam(t, cfg, 60*time.Second)
	first := readSnapshot(t, cfg.StateDir)
	if res.Stopped || first.Usage == nil || first.Budget == nil || first.Budget.Reached != "max_tokens 8000 reached" {
		t.Fatalf("first run: %+v, usage %+v, budget %+v", res, first.Usage, first.Budget)
	}

	res, stdout, _ := runTeamWith(t, cfg, 60*time.Second, resumeRun)
	evs := eventsOf(t, cfg)
	if res.Stopped || countEvents(evs, event.BudgetExceeded, "") != 2 || !strings.Contains(stdout, "WARNING: the team's max_tokens 8000 reached (") {
		t.Errorf("carried on: %+v, %d budget_exceeded\n%s", res, countEvents(evs, event.BudgetExceeded, ""), stdout)
	}
	if snap := readSnapshot(t, cfg.StateDir); snap.Usage == nil || snap.Usage.Tokens.Total() < first.Usage.Tokens.Total() {
		t.Errorf("the spend was not carried: %+v after %+v", snap.Usage, first.Usage)
	}

	cfg.MaxTokens = 1_000_000
	team, _, wait := startTeamWith(t, cfg, func(tm *Team) {
		if err := resumeRun(tm); err != nil {
			t.Error(err)
		}
	})
	waitFor(t, "spending past the old budget", func() bool {
		u, _ := team.spendNow()
		return u != nil && u.Tokens.Total() > first.Usage.Tokens.Total()+8000
	})
	team.Stop(true)
	wait()
	if n := countEvents(eventsOf(t, cfg), event.BudgetExceeded, ""); n != 2 {
		t.Errorf("%d budget_exceeded with the budget raised in the team file", n)
	}
}

// A team stopped while its agents are parked at the budget stops at once:
// a parked agent is asked for no last checkpoint (it could not answer), its
// stopped process group is continued and ended, and the handoff says where
// the run stood with its budget.
func TestStopWhileParkedAtTheBudget(t *testing.T) {
	defer proctest.AssertNone(t)
	team, _, wait := startTeam(t, `shutdown_timeout = "2s"
checkpoint_interval = "300ms"
checkpoint_timeout = "20s"
max_tokens = 5000
on_budget = "pause"
`+budgetTask, fakeAgent{name: "s", mode: "spender:in=1000:out=100:every=100ms"})
	waitFor(t, "the agent parked", func() bool {
		s, err := state.ReadSnapshot(team.cfg.StateDir)
		return err == nil && s.Budget != nil && s.Budget.Paused
	})
	start := time.Now()
	team.Stop(true)
	wait()
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("the stop took %s (checkpoint_timeout 20s, shutdown_timeout 2s)", took)
	}
	md, err := os.ReadFile(filepath.Join(team.cfg.StateDir, "handoff.md"))
	if err != nil || !strings.Contains(string(md), "## Spent") || !strings.Contains(string(md), "max_tokens 5000 reached: agents parked until `warden resume`") {
		t.Errorf("handoff.md (%v):\n%s", err, md)
	}
}

// `warden resume AGENT` lets that agent go on and keeps the others parked;
// the budget stays reached until a resume of every agent lifts it.
func TestResumeOneAgentAtTheBudget(t *testing.T) {
	defer proctest.AssertNone(t)
	spender := "spender:in=1000:out=100:every=100ms"
	team, _, wait := startTeam(t, `shutdown_timeout = "2s"
checkpoint_interval = "300ms"
checkpoint_timeout = "2s"
max_tokens = 8000
on_budget = "pause"
[[task]]
id = "T1"
prompt = "Spend."
agent = "a"
[[task]]
id = "T2"
prompt = "Spend."
agent = "b"
`, fakeAgent{name: "a", mode: spender}, fakeAgent{name: "b", mode: spender})
	spentBy := func(name string) int64 {
		for _, as := range team.agentStatus() {
			if as.Name == name && as.Usage != nil {
				return as.Usage.Tokens.Total()
			}
		}
		return 0
	}
	waitFor(t, "both parked", func() bool { return team.agentNamed("a").BudgetHeld() && team.agentNamed("b").BudgetHeld() })
	time.Sleep(2500 * time.Millisecond) // a whole usage poll: what was written before the stop is read
	a0, b0 := spentBy("a"), spentBy("b")
	r, err := control.NewClient(team.cfg.StateDir).Resume(control.ResumeRequest{Agent: "a"})
	if err != nil || len(r.Agents) != 1 || r.Agents[0] != "a" || r.Lifted {
		t.Fatalf("resume a: %+v %v", r, err)
	}
	waitFor(t, "a spending again", func() bool { return spentBy("a") > a0+3000 })
	if b := spentBy("b"); b != b0 || !team.agentNamed("b").BudgetHeld() {
		t.Errorf("b spent %d after %d, held %v", b, b0, team.agentNamed("b").BudgetHeld())
	}
	if snap := readSnapshot(t, team.cfg.StateDir); snap.Budget == nil || !snap.Budget.Paused || snap.Budget.Lifted {
		t.Errorf("state.json budget %+v", snap.Budget)
	}
	if e := firstEvent(eventsOf(t, team.cfg), event.BudgetResumed); e == nil || e["agent"] != "a" {
		t.Errorf("budget_resumed %v", e)
	}
	r, err = control.NewClient(team.cfg.StateDir).Resume(control.ResumeRequest{})
	if err != nil || len(r.Agents) != 1 || r.Agents[0] != "b" || !r.Lifted {
		t.Fatalf("resume: %+v %v", r, err)
	}
	waitFor(t, "b spending again", func() bool { return spentBy("b") > b0+3000 })
	team.Stop(true)
	wait()
}
