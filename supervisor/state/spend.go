package state

import (
	"fmt"
	"strings"

	"github.com/wardenhq/warden/internal/mdtext"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
)

// Budget is the team's budget as state.json, `warden status` and the page
// show it: its limits (as the team file sets them, or as a person raised
// them with `warden resume`) and where the run stands.
type Budget struct {
	MaxCost   float64 `json:"max_cost,omitempty"`
	MaxTokens int64   `json:"max_tokens,omitempty"`
	// Reached says which limit the run reached ("max_cost $40.00
	// reached"); Paused that its agents are parked for a person
	// (on_budget = "pause") until `warden resume`.
	Reached string `json:"reached,omitempty"`
	Paused  bool   `json:"paused,omitempty"`
	// Raised: a person set these limits (`warden resume --max-cost`);
	// Lifted: a person let the run go on past its budget (`warden resume`
	// without a new limit): it no longer applies to this run.
	Raised bool `json:"raised,omitempty"`
	Lifted bool `json:"lifted,omitempty"`
}

// Limits is the budget's limits as a config.Budget.
func (b *Budget) Limits() config.Budget {
	if b == nil || b.Lifted {
		return config.Budget{}
	}
	return config.Budget{MaxCost: b.MaxCost, MaxTokens: b.MaxTokens}
}

// Spend says what u spent as a person reads it: "1.23M tokens, $4.56";
// the dollars are left out when nothing priced the tokens, and unpriced
// models are named. "" for nil.
func Spend(u *protocol.Usage) string {
	if u == nil {
		return ""
	}
	s := Count(u.Tokens.Total()) + " tokens"
	if u.CostUSD != nil {
		s += ", " + config.Dollars(*u.CostUSD)
	}
	if len(u.Unpriced) > 0 {
		s += " (unpriced: " + strings.Join(u.Unpriced, ", ") + ")"
	}
	return s
}

// Count writes a number of tokens short: 950, 12.3k, 4.56M.
func Count(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1e3)) + "k"
	}
	return trimZero(fmt.Sprintf("%.2f", float64(n)/1e6)) + "M"
}

func trimZero(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// teamSpend is the run's spend and budget in one line (TeamSpend).
func teamSpend(s Snapshot) string { return TeamSpend(s.Usage, s.Budget) }

// TeamSpend is the run's spend and budget in one line: "spent 1.2M
// tokens, $3.40 (max_cost $40.00: 9%)", and where the run stands with its
// budget; "" when nothing was spent and no budget is set.
func TeamSpend(used *protocol.Usage, budget *Budget) string {
	if used == nil && budget == nil {
		return ""
	}
	u := protocol.Usage{}
	if used != nil {
		u = *used
	}
	line := "spent " + Spend(&u)
	var shares []string
	for _, sh := range budget.Limits().Shares(u) {
		shares = append(shares, fmt.Sprintf("%s %s: %d%%", sh.Key, sh.Limit, int(sh.Percent))) // 99% until it is reached
	}
	if len(shares) > 0 {
		line += " (" + strings.Join(shares, ", ") + ")"
	}
	switch b := budget; {
	case b == nil:
	case b.Paused:
		line += " — " + b.Reached + ": agents parked until `warden resume`"
	case b.Lifted:
		line += " — budget lifted by `warden resume`"
	case b.Reached != "":
		line += " — " + b.Reached
	}
	return line
}

// spendSection is STATUS.md's "Spent" section: the run, each agent and
// each task that spent anything; "" when nothing was.
func spendSection(s Snapshot) string {
	// The run's line is warden's own, its `warden resume` a code span:
	// what it quotes from elsewhere (a budget's reason, the models no row
	// priced, which a CLI's files name) is escaped before it is joined in.
	md := s
	if s.Budget != nil {
		b := *s.Budget
		b.Reached = mdtext.Escape(b.Reached)
		md.Budget = &b
	}
	if s.Usage != nil {
		u := *s.Usage
		u.Unpriced = escapeAll(u.Unpriced)
		md.Usage = &u
	}
	line := teamSpend(md)
	if line == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Spent\n\n" + clean(line) + "\n\n| Agent or task | Tokens | Input | Cached input | Output | Cost |\n|---|---|---|---|---|---|\n")
	row := func(name string, u *protocol.Usage) {
		if u == nil {
			return
		}
		cost := "-"
		if u.CostUSD != nil {
			cost = config.Dollars(*u.CostUSD)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s |\n", cell(name), u.Tokens.Total(), u.Tokens.Input, u.Tokens.CachedInput,
			u.Tokens.Output, cost)
	}
	for _, a := range s.Agents {
		row("agent "+a.Name, a.Usage)
	}
	for _, t := range s.Tasks {
		row("task "+t.ID, t.Usage)
	}
	return b.String()
}

// escapeAll is every text of list escaped for Markdown.
func escapeAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = mdtext.Escape(s)
	}
	return out
}
