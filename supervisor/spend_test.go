//go:build e2e

package supervisor

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent/hooked"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// spenderPrice prices the spender's model: $2 a million plain input, $0.50
// cached, $4 written to the cache, $10 output.
const spenderPrice = `
[[price]]
model = "fake-*"
input = 2
cached_input = 0.5
cache_write = 4
output = 10
`

// spenderAnswer is what one answer of spender:in=1000:cached=500:write=200
// :out=100 spends, and its price at spenderPrice.
var spenderAnswer = hooked.SpenderTokens(map[string]string{"in": "1000", "cached": "500", "write": "200", "out": "100"})

const spenderAnswerUSD = (1000*2 + 500*0.5 + 200*4 + 100*10) / 1e6

// times is n answers' tokens.
func times(t protocol.Tokens, n int) protocol.Tokens {
	var out protocol.Tokens
	for range n {
		out = out.Add(t)
	}
	return out
}

// A session's tokens, read from its CLI's transcript (named by its status
// line), go into its records — the last one completed once the process has
// ended — and, per task, agent and in all, into state.json, STATUS.md and
// the dashboard, priced by the [[price]] rows.
func TestRecordsCarryWhatTheSessionSpent(t *testing.T) {
	defer proctest.AssertNone(t)
	team, _, wait := startTeam(t, `checkpoint_interval = "300ms"
checkpoint_timeout = "2s"
shutdown_timeout = "2s"
`+spenderPrice+budgetTask, fakeAgent{name: "s", mode: "spender:in=1000:cached=500:write=200:out=100:every=100ms:turns=5"})
	waitFor(t, "five answers and a record after them", func() bool {
		cp, _ := team.store.Load("s", "T1")
		return cp != nil && cp.Usage != nil && cp.Usage.Tokens == times(spenderAnswer, 5)
	})
	team.Stop(true)
	wait()

	want := protocol.Usage{Tokens: times(spenderAnswer, 5)}
	cost := 5 * spenderAnswerUSD
	check := func(what string, u *protocol.Usage) {
		t.Helper()
		if u == nil || u.Tokens != want.Tokens || u.CostUSD == nil || math.Abs(*u.CostUSD-cost) > 1e-9 {
			t.Errorf("%s: %+v, want %+v and $%.5f", what, u, want.Tokens, cost)
		}
	}
	cp, err := team.store.Load("s", "T1")
	if err != nil || cp == nil {
		t.Fatal(cp, err)
	}
	check("the task's last record", cp.Usage)
	if cp.Usage != nil && cp.Usage.CostFrom != protocol.CostFromPrice {
		t.Errorf("cost_from %q, want price", cp.Usage.CostFrom)
	}
	hist, err := os.ReadFile(filepath.Join(team.cfg.StateDir, "checkpoints", "history", "T1", cp.CheckpointID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var kept protocol.Checkpoint
	if err := json.Unmarshal(hist, &kept); err != nil {
		t.Fatal(err)
	}
	check("its history file", kept.Usage)
	snap := readSnapshot(t, team.cfg.StateDir)
	check("state.json's team", snap.Usage)
	check("state.json's agent", snap.Agents[0].Usage)
	check("state.json's task", snap.Tasks[0].Usage)
	md, _ := os.ReadFile(filepath.Join(team.cfg.StateDir, "STATUS.md"))
	if !strings.Contains(string(md), "## Spent") || !strings.Contains(string(md), "| agent s | 9000 | 8500 | 2500 | 500 | $0.02 |") {
		t.Errorf("STATUS.md:\n%s", md)
	}
}

// A task's max_cost stops its session and fails it with the reason, as
// max_time does; the agent is free and the run goes on to its end.
func TestTaskStopsAtItsMaxCost(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `shutdown_timeout = "2s"
`+spenderPrice+budgetTask+`max_cost = 0.01
`, fakeAgent{name: "s", mode: "spender:in=1000:cached=500:write=200:out=100:every=100ms"})
	res, stdout, _ := runTeam(t, cfg, 30*time.Second)
	if res.Tasks[0].State != queue.Failed || res.Tasks[0].Reason != "max_cost $0.01 reached" {
		t.Fatalf("tasks %+v\n%s", res.Tasks, stdout)
	}
	if !strings.Contains(stdout, "TASK FAILED: T1 (max_cost $0.01 reached)") || res.ExitCode() != 1 || res.Stopped {
		t.Errorf("exit %d, stdout:\n%s", res.ExitCode(), stdout)
	}
	evs := eventsOf(t, cfg)
	e := firstEvent(evs, event.BudgetExceeded)
	if e == nil || e["budget"] != "task" || e["limit"] != "max_cost" || e["action"] != "task_failed" || e["task"] != "T1" {
		t.Errorf("budget_exceeded %v", e)
	}
	if n := countEvents(evs, event.BudgetExceeded, ""); n != 1 {
		t.Errorf("%d budget_exceeded events, want 1", n)
	}
	if u := res.Tasks[0].Usage; u == nil || u.Dollars() < 0.01 {
		t.Errorf("the task spent %+v", u)
	}
}

// The team's max_tokens: a cost_warning at cost_warning %, once; then the
// budget reached ends the run with a team checkpoint whose handoff says
// why (on_budget = "checkpoint-exit", the default).
func TestTeamBudgetEndsTheRunWithAHandoff(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `shutdown_timeout = "2s"
checkpoint_interval = "1s"
max_tokens = 40000
cost_warning = 40
`+budgetTask, fakeAgent{name: "s", mode: "spender:in=1000:cached=500:write=200:out=100:every=300ms"})
	res, stdout, _ := runTeam(t, cfg, 60*time.Second)
	if res.Stopped || res.ExitCode() != 1 || res.Tasks[0].State == queue.Complete {
		t.Errorf("result %+v", res)
	}
	evs := eventsOf(t, cfg)
	if n := countEvents(evs, event.CostWarning, ""); n != 1 {
		t.Errorf("%d cost_warning events, want 1: %v", n, evs)
	}
	if e := firstEvent(evs, event.CostWarning); e != nil && (e["budget"] != "team" || e["limit"] != "max_tokens") {
		t.Errorf("cost_warning %v", e)
	}
	if strings.Count(stdout, "WARNING: the team has spent") != 1 || !strings.Contains(stdout, "of its max_tokens 40000") {
		t.Errorf("stdout:\n%s", stdout)
	}
	e := firstEvent(evs, event.BudgetExceeded)
	if e == nil || e["budget"] != "team" || e["action"] != "checkpoint-exit" {
		t.Errorf("budget_exceeded %v", e)
	}
	started := firstEvent(evs, event.TeamCheckpointStarted)
	if started == nil || started["cause"] != protocol.CauseBudget || !strings.HasPrefix(started["reason"].(string), "the team's max_tokens 40000 reached (") {
		t.Errorf("team_checkpoint_started %v", started)
	}
	if countEvents(evs, event.TeamRehydrated, "") != 0 || !strings.Contains(stdout, "\nCHECKPOINT COMPLETE\n") {
		t.Errorf("no exit after the team checkpoint: %s", stdout)
	}
	md, err := os.ReadFile(filepath.Join(cfg.StateDir, "handoff.md"))
	if err != nil || !strings.Contains(string(md), "max_tokens 40000 reached") {
		t.Errorf("handoff.md (%v):\n%s", err, md)
	}
	snap := readSnapshot(t, cfg.StateDir)
	if snap.Budget == nil || snap.Budget.Reached != "max_tokens 40000 reached" || snap.Usage == nil || snap.Usage.Tokens.Total() < 40000 {
		t.Errorf("state.json budget %+v, usage %+v", snap.Budget, snap.Usage)
	}
	var b strings.Builder
	state.RenderDashboard(&b, *snap, time.Now())
	if !strings.Contains(b.String(), "(max_tokens 40000: 1") || !strings.Contains(b.String(), "— max_tokens 40000 reached") {
		t.Errorf("dashboard:\n%s", b.String())
	}
}
