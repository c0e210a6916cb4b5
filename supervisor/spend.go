package supervisor

import (
	"fmt"
	"sync"
	"time"

	"github.com/wardenhq/warden/handoff"
	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// spendBook is what the run spent and where it stands with its budgets
// (DESIGN §3 "Budgets and accounts"): every session's gain is charged to
// it (agentTeam.Spent), the team's max_cost and max_tokens and each task's
// are checked, each budget warned of once at cost_warning, and the team's
// reached at most once until a person lets the run go on.
type spendBook struct {
	mu    sync.Mutex
	ready bool           // limits were read off the team file
	used  protocol.Usage // every session of the run, carried-on runs included
	// limits are the team's budget: the team file's, or as `warden resume`
	// raised it (raised); lifted: a person let the run go on past it.
	limits         config.Budget
	raised, lifted bool
	// reached says which limit of the team's the run reached ("" none);
	// paused: its agents are parked for a person (on_budget = "pause").
	reached string
	paused  bool
	warned  map[string]bool // budgets warned of: "team max_cost", "task T1 max_tokens"
	over    map[string]bool // tasks whose budget_exceeded was said
	// published is when a charge last rewrote state.json.
	published time.Time
}

// spendPublishEvery bounds how often charges alone rewrite state.json
// (each agent's session reads its files every 2 s); a warning, a budget
// reached or any other change writes at once.
const spendPublishEvery = 5 * time.Second

// charge adds what a session of agent spent on task ("" for none) since
// its last figure, and acts on the budgets it reaches.
func (t *Team) charge(agentName, taskID string, gained protocol.Usage) {
	b := t.book()
	b.used = b.used.Plus(gained)
	var acts []func()
	if taskID != "" {
		if task, ok := t.cfg.Task(taskID); ok && task.Budget.Set() {
			acts = append(acts, b.checkTask(t, agentName, task, t.queue.Usage(taskID))...)
		}
	}
	acts = append(acts, b.checkTeam(t)...)
	now := time.Now()
	publish := len(acts) > 0 || now.Sub(b.published) >= spendPublishEvery
	if publish {
		b.published = now
	}
	b.mu.Unlock()
	for _, act := range acts {
		act()
	}
	if publish {
		t.publish()
	}
}

// checkTask warns of a task's budget and says when it is reached (the
// task's session stops on its own reading: reporter.Usage). b.mu held; it
// returns what to do once it is released.
func (b *spendBook) checkTask(t *Team, agentName string, task *config.Task, spent protocol.Usage) []func() {
	var acts []func()
	for _, sh := range task.Budget.Shares(spent) {
		key := "task " + task.ID + " " + sh.Key
		switch {
		case sh.Percent >= 100 && !b.over[task.ID]:
			b.mark(&b.over, task.ID)
			b.mark(&b.warned, key)
			acts = append(acts, func() {
				t.events.Emit(event.BudgetExceeded, agentName, task.ID, "budget", "task", "limit", sh.Key, "max", sh.Limit,
					"spent", sh.Spent, "action", "task_failed")
			})
		case sh.Percent >= float64(t.costWarning()) && !b.warned[key]:
			b.mark(&b.warned, key)
			acts = append(acts, func() {
				t.events.Emit(event.CostWarning, agentName, task.ID, "budget", "task", "limit", sh.Key, "max", sh.Limit,
					"spent", sh.Spent, "percent", int(sh.Percent))
				t.printf("WARNING: %s has spent %s of its %s %s (%.0f%%)\n", task.ID, sh.Spent, sh.Key, sh.Limit, sh.Percent)
			})
		}
	}
	return acts
}

// checkTeam warns of the team's budget and acts when it is reached:
// on_budget. b.mu held; it returns what to do once it is released.
func (b *spendBook) checkTeam(t *Team) []func() {
	if b.lifted || b.reached != "" {
		return nil
	}
	var acts []func()
	for _, sh := range b.limits.Shares(b.used) {
		key := "team " + sh.Key
		switch {
		case sh.Percent >= 100:
			b.reached = sh.Key + " " + sh.Limit + " reached"
			b.mark(&b.warned, key)
			why := fmt.Sprintf("%s (%s spent)", b.reached, sh.Spent)
			acts = append(acts, func() { t.budgetReached(sh, why) })
			return acts
		case sh.Percent >= float64(t.costWarning()) && !b.warned[key]:
			b.mark(&b.warned, key)
			acts = append(acts, func() {
				t.events.Emit(event.CostWarning, "", "", "budget", "team", "limit", sh.Key, "max", sh.Limit,
					"spent", sh.Spent, "percent", int(sh.Percent))
				t.printf("WARNING: the team has spent %s of its %s %s (%.0f%%)\n", sh.Spent, sh.Key, sh.Limit, sh.Percent)
			})
		}
	}
	return acts
}

// book is the team's spend book, locked (b.mu.Unlock when done), its
// limits read off the team file the first time.
func (t *Team) book() *spendBook {
	b := &t.spend
	b.mu.Lock()
	if !b.ready {
		b.limits, b.ready = t.cfg.Budget, true
	}
	return b
}

func (b *spendBook) mark(m *map[string]bool, key string) {
	if *m == nil {
		*m = map[string]bool{}
	}
	(*m)[key] = true
}

// costWarning is cost_warning, 80 when the team file's config was built
// without it.
func (t *Team) costWarning() int {
	if t.cfg.CostWarning <= 0 {
		return config.DefaultCostWarning
	}
	return t.cfg.CostWarning
}

// budgetReached acts on the team's budget: budget_exceeded, and
// on_budget — a team checkpoint, then exit (the handoff says why); or every
// agent parked for a person (pause.go).
func (t *Team) budgetReached(sh config.Share, why string) {
	action := t.cfg.OnBudget
	if action == "" {
		action = config.BudgetCheckpointExit
	}
	t.log.Warn("the team's budget is reached", "reason", why, "on_budget", action, console.Printed, true)
	said := func() {
		t.events.Emit(event.BudgetExceeded, "", "", "budget", "team", "limit", sh.Key, "max", sh.Limit, "spent", sh.Spent,
			"action", action)
	}
	if action == config.BudgetPause {
		t.pauseForBudget(why, said)
		return
	}
	said()
	t.printf("WARNING: the team's %s: team checkpoint, then exit\n", why)
	t.spent.Store(true)
	t.trigger(trigger{source: "budget", cause: protocol.CauseBudget, reason: "the team's " + why})
}

// spendNow is the run's spend and budget for state.json (nil, nil: no
// figure and no budget).
func (t *Team) spendNow() (*protocol.Usage, *state.Budget) {
	b := t.book()
	defer b.mu.Unlock()
	var u *protocol.Usage
	if !b.used.Zero() {
		c := b.used.Clone()
		u = &c
	}
	if !b.limits.Set() && b.reached == "" && !b.lifted {
		return u, nil
	}
	return u, &state.Budget{MaxCost: b.limits.MaxCost, MaxTokens: b.limits.MaxTokens, Reached: b.reached,
		Paused: b.paused, Raised: b.raised, Lifted: b.lifted}
}

// carrySpend gives a run carried on what it had spent, per task, agent and
// in all, and the budget as a person left it (raised or lifted by `warden
// resume`: a person's word holds for the rest of the run); the warnings
// already given are not given again, and a budget already reached is acted
// on at once.
func (t *Team) carrySpend(prev *state.Snapshot) {
	for _, ts := range prev.Tasks {
		t.queue.RestoreUsage(ts.ID, ts.Usage)
	}
	for _, as := range prev.Agents {
		if a := t.agentNamed(as.Name); a != nil {
			a.RestoreSpend(as.Usage)
		}
	}
	b := t.book()
	if prev.Usage != nil {
		b.used = prev.Usage.Clone()
	}
	if pb := prev.Budget; pb != nil && (pb.Raised || pb.Lifted) {
		b.limits, b.raised, b.lifted = config.Budget{MaxCost: pb.MaxCost, MaxTokens: pb.MaxTokens}, pb.Raised, pb.Lifted
	}
	for _, sh := range b.limits.Shares(b.used) {
		if sh.Percent >= float64(t.costWarning()) {
			b.mark(&b.warned, "team "+sh.Key)
		}
	}
	for _, ts := range prev.Tasks {
		if task, ok := t.cfg.Task(ts.ID); ok && ts.Usage != nil {
			for _, sh := range task.Budget.Shares(*ts.Usage) {
				if sh.Percent >= float64(t.costWarning()) {
					b.mark(&b.warned, "task "+ts.ID+" "+sh.Key)
				}
			}
		}
	}
	acts := b.checkTeam(t)
	b.mu.Unlock()
	for _, act := range acts {
		act()
	}
}

// Spent charges the team with what a session of agent spent on task.
func (a agentTeam) Spent(agentName, task string, gained protocol.Usage) {
	a.t.charge(agentName, task, gained)
}

// handoffSpend puts into the handoff what the run spent, with its budget,
// and what each task did.
func (t *Team) handoffSpend(d *handoff.Data, tasks []queue.Status) {
	u, b := t.spendNow()
	d.Spent = state.TeamSpend(u, b)
	byID := map[string]*protocol.Usage{}
	for _, ts := range tasks {
		byID[ts.ID] = ts.Usage
	}
	for i := range d.Tasks {
		d.Tasks[i].Spent = state.Spend(byID[d.Tasks[i].ID])
	}
}
