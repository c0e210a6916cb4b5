package supervisor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/supervisor/agent"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/event"
)

// pauseForBudget parks every agent for a person: the team's budget is
// reached and on_budget = "pause". The agents are parked the way an
// account's usage limit parks them (agent.HoldForBudget): nothing typed,
// no request, no stale clock, their process groups stopped; the
// budget_exceeded event (said, once every agent is held: no request is
// typed after it) is what [[notify]] tells a person. `warden resume` (or
// the page) lets them go on.
func (t *Team) pauseForBudget(why string, said func()) {
	b := t.book()
	b.paused = true
	b.mu.Unlock()
	var held []string
	for _, a := range t.agents {
		if a.HoldForBudget() {
			held = append(held, a.Name())
		}
	}
	said()
	t.log.Warn("the team's budget is reached: agents parked until warden resume", "agents", held, console.Printed, true)
	t.printf("WARNING: the team's %s: every agent is parked; `warden resume` lets them go on\n", why)
	t.publish()
}

// Resume lets agents parked for the team's budget go on (`warden resume`,
// the page): every one, or req.Agent alone (the others stay parked). With
// req.MaxCost or req.MaxTokens the team's budget is raised to them (each
// above what the run has spent; the warnings of a raised limit come again);
// without, the budget that was reached no longer applies to this run
// (lifted). budget_resumed says what was done.
func (c controlTeam) Resume(req control.ResumeRequest) (*control.Resumed, error) {
	t := c.t
	if req.Account != "" {
		return c.releaseAccount(req)
	}
	if req.Agent != "" && t.agentNamed(req.Agent) == nil {
		return nil, fmt.Errorf("no agent named %q", req.Agent)
	}
	raise := req.MaxCost > 0 || req.MaxTokens > 0
	b := t.book()
	if req.MaxCost < 0 || req.MaxTokens < 0 {
		b.mu.Unlock()
		return nil, errors.New("a budget is positive")
	}
	switch {
	case b.reached != "" && !b.paused && !b.lifted:
		b.mu.Unlock()
		return nil, fmt.Errorf("the run is ending at its budget (%s; on_budget = %q): nothing is parked", b.reached, t.cfg.OnBudget)
	case !raise && !b.paused:
		b.mu.Unlock()
		return nil, errors.New("no agent is parked for the team's budget (--max-cost or --max-tokens raise it)")
	}
	if raise {
		limits := b.limits
		if b.lifted {
			limits = config.Budget{}
		}
		if req.MaxCost > 0 {
			limits.MaxCost = req.MaxCost
		}
		if req.MaxTokens > 0 {
			limits.MaxTokens = req.MaxTokens
		}
		if why := limits.Reached(b.used); why != "" {
			b.mu.Unlock()
			return nil, fmt.Errorf("the run has spent %s already: %s (raise it above that)", spentOf(b), why)
		}
		b.limits, b.raised, b.lifted, b.reached = limits, true, false, ""
		for _, sh := range limits.Shares(b.used) { // a raised limit is warned of again
			if sh.Percent < float64(t.costWarning()) {
				delete(b.warned, "team "+sh.Key)
			}
		}
	} else if req.Agent == "" {
		b.lifted = true
	}
	res := &control.Resumed{Agents: []string{}, Lifted: b.lifted, MaxCost: b.limits.MaxCost, MaxTokens: b.limits.MaxTokens}
	if res.Lifted {
		res.MaxCost, res.MaxTokens = 0, 0
	}
	b.mu.Unlock()
	var going []*agent.Agent
	for _, a := range t.agents {
		if (req.Agent == "" || a.Name() == req.Agent) && a.BudgetHeld() {
			res.Agents = append(res.Agents, a.Name())
			going = append(going, a)
		}
	}
	via := req.Via
	if via == "" {
		via = "cli"
	}
	// Said before they go on: what they do next comes after it in the events.
	t.events.Emit(event.BudgetResumed, req.Agent, "", "agents", res.Agents, "lifted", res.Lifted, "max_cost", res.MaxCost,
		"max_tokens", res.MaxTokens, "via", via)
	for _, a := range going {
		a.ReleaseBudget()
	}
	b = t.book()
	b.paused = false
	for _, a := range t.agents {
		b.paused = b.paused || a.BudgetHeld()
	}
	b.mu.Unlock()
	t.printf("RESUMED: %s (%s)\n", resumedWhat(res), via)
	t.publish()
	return res, nil
}

// releaseAccount ends the usage-limit park of req.Account (`warden resume
// --account`, the page) at once: a person's word, which account_resumed
// says (by person, via). It takes no agent and no budget.
func (c controlTeam) releaseAccount(req control.ResumeRequest) (*control.Resumed, error) {
	t := c.t
	if req.Agent != "" || req.MaxCost != 0 || req.MaxTokens != 0 {
		return nil, errors.New("--account goes alone: no agent, no budget")
	}
	via := req.Via
	if via == "" {
		via = "cli"
	}
	agents, err := t.deps.Accounts.Release(req.Account, via)
	if err != nil {
		return nil, err
	}
	t.publish()
	return &control.Resumed{Agents: agents, Account: req.Account}, nil
}

// spentOf is what the book says the run spent (b.mu held).
func spentOf(b *spendBook) string {
	return fmt.Sprintf("%s and %d tokens", config.Dollars(b.used.Dollars()), b.used.Tokens.Total())
}

// resumedWhat says what Resume did, as its line on stdout.
func resumedWhat(r *control.Resumed) string {
	agents := "no agent was parked"
	if len(r.Agents) > 0 {
		agents = strings.Join(r.Agents, ", ") + " go on"
	}
	switch {
	case r.Lifted:
		return agents + "; the team's budget is lifted for this run"
	case r.MaxCost > 0 && r.MaxTokens > 0:
		return fmt.Sprintf("%s; the team's budget is now max_cost %s, max_tokens %d", agents, config.Dollars(r.MaxCost), r.MaxTokens)
	case r.MaxCost > 0:
		return fmt.Sprintf("%s; the team's budget is now max_cost %s", agents, config.Dollars(r.MaxCost))
	case r.MaxTokens > 0:
		return fmt.Sprintf("%s; the team's budget is now max_tokens %d", agents, r.MaxTokens)
	}
	return agents
}
