package config

import (
	"fmt"
	"math"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/usage"
)

// Values of on_budget: what happens when the team's max_cost or max_tokens
// is reached.
const (
	BudgetCheckpointExit = "checkpoint-exit" // a team checkpoint, then exit
	BudgetPause          = "pause"           // the agents are parked until `warden resume`
)

// Defaults of the budget keys.
const (
	DefaultCostWarning = 80 // percent of a budget: cost_warning
	DefaultOnBudget    = BudgetCheckpointExit
)

// Budget is what a run may spend, as the team file says: the team's
// (max_cost, max_tokens at the top level, with cost_warning, on_budget and
// the [[price]] table) or a task's (max_cost, max_tokens in [[task]]).
// Zero: no such budget.
type Budget struct {
	// MaxCost is the most dollars; MaxTokens the most tokens, every token
	// counted once (the whole prompt, its cached part included, and the
	// replies).
	MaxCost   float64
	MaxTokens int64
}

// Set reports whether the budget limits anything.
func (b Budget) Set() bool { return b.MaxCost > 0 || b.MaxTokens > 0 }

// TeamBudget is the team's budget and what goes with it.
type TeamBudget struct {
	Budget
	// CostWarning is the percent of a budget (the team's or a task's) at
	// which a cost_warning event and a WARNING line come, once per budget;
	// default 80, 1..100.
	CostWarning int
	// OnBudget is what happens when the team's budget is spent:
	// "checkpoint-exit" (default) or "pause".
	OnBudget string
	// Prices price the tokens of the CLIs that do not price them themselves
	// ([[price]]; the first row whose model glob matches).
	Prices usage.Prices
}

// teamBudget reads the team's budget keys.
func (d *decoder) teamBudget(top table) TeamBudget {
	b := TeamBudget{Budget: d.budget(top), CostWarning: DefaultCostWarning, OnBudget: DefaultOnBudget}
	b.CostWarning = top.integer("cost_warning", DefaultCostWarning, 1, 100, "between 1 and 100")
	b.OnBudget = top.oneOf("on_budget", DefaultOnBudget, BudgetCheckpointExit, BudgetPause)
	rows, _ := d.tableArray(top, "price")
	for _, r := range rows {
		b.Prices = append(b.Prices, d.price(r))
	}
	return b
}

// budget reads max_cost and max_tokens of a table (the top level or a
// [[task]]).
func (d *decoder) budget(t table) Budget {
	var b Budget
	if v, ok := t.dollars("max_cost", false); ok {
		b.MaxCost = v
	}
	b.MaxTokens = int64(t.integer("max_tokens", 0, 1, math.MaxInt64, "1 or more")) // 0: no limit
	return b
}

// price reads one [[price]] row: a model glob and dollars per million
// tokens.
func (d *decoder) price(t table) usage.Price {
	t.unknown("model", "input", "cached_input", "cache_write", "output")
	var p usage.Price
	if m, ok := t.nonEmpty("model"); ok {
		p.Model = m
		if err := (usage.Prices{p}).Check(); err != nil {
			d.errorf(t.key("model"), "model %q is not a valid glob", m)
		}
	} else if _, present := t.vals["model"]; !present {
		d.errorf(t.path, "missing key \"model\"%s", t.where)
	}
	for _, k := range []string{"input", "output"} {
		if _, present := t.vals[k]; !present {
			d.errorf(t.path, "missing key %q%s", k, t.where)
		}
	}
	p.Input, _ = t.dollars("input", true)
	p.CachedInput, _ = t.dollars("cached_input", true)
	p.CacheWrite, _ = t.dollars("cache_write", true)
	p.Output, _ = t.dollars("output", true)
	return p
}

// dollars returns the amount at k, a float or an integer: positive, or 0
// or more with zeroOK; ok is false when k is missing or invalid (the
// latter reported).
func (t table) dollars(k string, zeroOK bool) (float64, bool) {
	v, present := t.vals[k]
	if !present {
		return 0, false
	}
	var f float64
	switch n := v.(type) {
	case int64:
		f = float64(n)
	case float64:
		f = n
	default:
		t.d.errorf(t.key(k), "%s must be a number, not %s", k, tomlType(v))
		return 0, false
	}
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0) || f > 1e12:
		t.d.errorf(t.key(k), "%s must be a finite amount, not %v", k, f)
		return 0, false
	case f < 0 || (f == 0 && !zeroOK):
		want := "positive"
		if zeroOK {
			want = "0 or more"
		}
		t.d.errorf(t.key(k), "%s must be %s, not %s", k, want, fmt.Sprint(f))
		return 0, false
	}
	return f, true
}

// Reached says which of b's limits u has reached — "max_cost $5.00
// reached", "max_tokens 2000000 reached" — or "".
func (b Budget) Reached(u protocol.Usage) string {
	for _, s := range b.Shares(u) {
		if s.Percent >= 100 {
			return s.Key + " " + s.Limit + " reached"
		}
	}
	return ""
}

// Share is how much of one limit of a budget is spent.
type Share struct {
	Key     string  // "max_cost" or "max_tokens"
	Limit   string  // as a person reads it: "$5.00", "2000000"
	Spent   string  // likewise
	Percent float64 // of the limit
}

// Shares lists the share of each limit of b that u has spent, max_cost
// first.
func (b Budget) Shares(u protocol.Usage) []Share {
	var out []Share
	if b.MaxCost > 0 {
		out = append(out, Share{Key: "max_cost", Limit: Dollars(b.MaxCost), Spent: Dollars(u.Dollars()),
			Percent: 100 * u.Dollars() / b.MaxCost})
	}
	if b.MaxTokens > 0 {
		n := u.Tokens.Total()
		out = append(out, Share{Key: "max_tokens", Limit: fmt.Sprint(b.MaxTokens), Spent: fmt.Sprint(n),
			Percent: 100 * float64(n) / float64(b.MaxTokens)})
	}
	return out
}

// Dollars writes an amount as a person reads it: "$5.00", "$0.0123" for
// less than a cent.
func Dollars(v float64) string {
	if v != 0 && math.Abs(v) < 0.01 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}
