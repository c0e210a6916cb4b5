package protocol

import (
	"slices"
	"sort"
)

// Tokens are the tokens of a session, in one form for every CLI: Input is
// the whole prompt, with its cached and cache-written parts; CachedInput
// the part read from the provider's prompt cache; CacheWrite the part
// written to it (Claude only: the others count it as plain input);
// Output the replies (reasoning included).
type Tokens struct {
	Input       int64 `json:"input"`
	CachedInput int64 `json:"cached_input"`
	CacheWrite  int64 `json:"cache_write,omitempty"`
	Output      int64 `json:"output"`
}

// Add returns the sum of t and o.
func (t Tokens) Add(o Tokens) Tokens {
	return Tokens{Input: t.Input + o.Input, CachedInput: t.CachedInput + o.CachedInput,
		CacheWrite: t.CacheWrite + o.CacheWrite, Output: t.Output + o.Output}
}

// Sub returns t minus o.
func (t Tokens) Sub(o Tokens) Tokens {
	return Tokens{Input: t.Input - o.Input, CachedInput: t.CachedInput - o.CachedInput,
		CacheWrite: t.CacheWrite - o.CacheWrite, Output: t.Output - o.Output}
}

// Total is every token counted once: the prompt (its cached part
// included) and the replies. max_tokens budgets count this.
func (t Tokens) Total() int64 { return t.Input + t.Output }

// Where a session's dollars come from (Usage.CostFrom).
const (
	CostFromCLI   = "cli"   // the CLI's own price (Claude Code's status line cost)
	CostFromPrice = "price" // the team file's [[price]] rows
)

// Usage is what some sessions spent: a record's "usage" field (its
// session so far, cumulative: a session's newest record holds its total),
// and the sums state.json keeps per task, agent and team.
type Usage struct {
	Tokens Tokens `json:"tokens"`
	// CostUSD is dollars; nil when nothing priced the tokens (no CLI
	// figure, no [[price]] row for the model).
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// CostFrom says where a session's dollars come from: CostFromCLI or
	// CostFromPrice ("" in sums).
	CostFrom string `json:"cost_from,omitempty"`
	// Unpriced lists the models whose tokens no [[price]] row priced (they
	// are left out of CostUSD, never guessed), when the CLI gave no price.
	Unpriced []string `json:"unpriced,omitempty"`
}

// Dollars is CostUSD, 0 when nil.
func (u Usage) Dollars() float64 {
	if u.CostUSD == nil {
		return 0
	}
	return *u.CostUSD
}

// Zero reports whether u holds nothing: no token, no dollar.
func (u Usage) Zero() bool { return u.Tokens == (Tokens{}) && u.CostUSD == nil && len(u.Unpriced) == 0 }

// Plus is the sum of u and o: tokens and dollars added (nil only when both
// are), the unpriced models of both.
func (u Usage) Plus(o Usage) Usage {
	out := Usage{Tokens: u.Tokens.Add(o.Tokens), Unpriced: unionSorted(u.Unpriced, o.Unpriced)}
	if u.CostUSD != nil || o.CostUSD != nil {
		c := u.Dollars() + o.Dollars()
		out.CostUSD = &c
	}
	return out
}

// Minus is what u spent since o, an earlier figure of the same session:
// the tokens and dollars it gained (dollars nil when u has none), and u's
// unpriced models.
func (u Usage) Minus(o Usage) Usage {
	out := Usage{Tokens: u.Tokens.Sub(o.Tokens), CostFrom: u.CostFrom, Unpriced: slices.Clone(u.Unpriced)}
	if u.CostUSD != nil {
		c := u.Dollars() - o.Dollars()
		out.CostUSD = &c
	}
	return out
}

// Clone is a copy of u that shares nothing with it.
func (u Usage) Clone() Usage {
	if u.CostUSD != nil {
		c := *u.CostUSD
		u.CostUSD = &c
	}
	u.Unpriced = slices.Clone(u.Unpriced)
	return u
}

func unionSorted(a, b []string) []string {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := append(slices.Clone(a), b...)
	sort.Strings(out)
	return slices.Compact(out)
}
