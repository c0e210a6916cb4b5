package agent

import (
	"fmt"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/session"
	"github.com/wardenhq/warden/supervisor/usage"
)

var _ session.UsageReporter = (*reporter)(nil)

// Usage takes what the session spent so far (its CLI's own files): what it
// gained since its last figure is added to the agent's, the task's and
// the team's spend, and the budgets are checked (the team's by the team).
// It returns why the session must stop — its task's max_cost or
// max_tokens reached — or "". The final figure (read after the process
// ended) also completes the session's last record.
func (r *reporter) Usage(u protocol.Usage, final bool) string {
	a, d := r.a, r.a.d
	gained := u.Minus(r.spent)
	r.spent = u.Clone()
	a.mu.Lock()
	a.spend = a.spend.Plus(gained)
	a.mu.Unlock()
	stop := ""
	if r.task != nil {
		spent := d.Queue.AddUsage(r.task.ID, gained)
		stop = r.task.Budget.Reached(spent)
	}
	d.Team.Spent(a.cfg.Name, taskID(r.task), gained)
	if final {
		r.completeRecord(u)
	}
	return stop
}

// Prices are the team's [[price]] rows.
func (r *reporter) Prices() usage.Prices { return r.a.d.Config.Prices }

// completeRecord puts the session's final figures into its last record:
// the task's latest record while it is the session's (a session that
// never answered has its dispatch record), else the last record it made.
func (r *reporter) completeRecord(u protocol.Usage) {
	a, d := r.a, r.a.d
	if r.task == nil || r.s == nil {
		return
	}
	id := ""
	if cp, _ := d.Store.Load(a.cfg.Name, r.task.ID); cp != nil && cp.SessionID == r.s.ID() {
		id = cp.CheckpointID
	} else if cp := a.LastRecord(); cp != nil && cp.SessionID == r.s.ID() && cp.TaskID == r.task.ID {
		id = cp.CheckpointID
	}
	if id == "" {
		return
	}
	if err := d.Store.NoteUsage(a.cfg.Name, r.task.ID, id, u); err != nil {
		a.log.Warn("the session's final tokens not written to its last record", "task", r.task.ID, "checkpoint_id", id, "error", err)
	}
}

// spentWhy says why task may not start another session because its budget
// is spent ("max_cost $5.00 reached"), or "".
func (a *Agent) spentWhy(task *config.Task) string {
	if task == nil || !task.Budget.Set() {
		return ""
	}
	return task.Budget.Reached(a.d.Queue.Usage(task.ID))
}

// overspent fails a task whose session was stopped at its budget.
func (a *Agent) overspent(task *config.Task) {
	why := a.spentWhy(task)
	if why == "" {
		why = fmt.Sprintf("budget reached (max_cost %s, max_tokens %d)", config.Dollars(task.MaxCost), task.MaxTokens)
	}
	a.failTask(task, why)
}

// Spend is what the agent's sessions spent in the run (nil: nothing read
// yet).
func (a *Agent) Spend() *protocol.Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.spend.Zero() {
		return nil
	}
	u := a.spend.Clone()
	return &u
}

// RestoreSpend gives the agent what it had spent in a run carried on.
func (a *Agent) RestoreSpend(u *protocol.Usage) {
	if u == nil {
		return
	}
	a.mu.Lock()
	a.spend = u.Clone()
	a.mu.Unlock()
}

// HoldForBudget holds the agent for a person: the team's budget is reached
// and on_budget = "pause" (holds.go). It reports whether the agent was not
// held for it already.
func (a *Agent) HoldForBudget() bool { return a.Hold(HoldBudget, time.Time{}) }

// ReleaseBudget lets an agent held for the team's budget go on (`warden
// resume`); one its account holds stays parked until the account's reset.
// It reports whether the agent was held for the budget.
func (a *Agent) ReleaseBudget() bool { return a.Release(HoldBudget) }

// BudgetHeld reports whether the agent is held for the team's budget.
func (a *Agent) BudgetHeld() bool { return a.Held(HoldBudget) }
