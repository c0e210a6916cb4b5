//go:build !e2e

package state

import (
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/queue"
)

func TestCountIsShort(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 950: "950", 1000: "1k", 12345: "12.3k", 999_949: "999.9k", 1_000_000: "1M", 4_560_000: "4.56M", 1_200_000: "1.2M"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

// What the run spent, as warden status, STATUS.md, the handoff and ps say
// it: tokens, dollars when priced, the share of each limit, and where the
// run stands with its budget.
func TestTeamSpendSaysWhereTheRunStands(t *testing.T) {
	cost := 3.4
	u := &protocol.Usage{Tokens: protocol.Tokens{Input: 1_100_000, CachedInput: 900_000, Output: 100_000}, CostUSD: &cost}
	unpriced := &protocol.Usage{Tokens: protocol.Tokens{Input: 5000, Output: 100}, Unpriced: []string{"gpt-9"}}
	for _, c := range []struct {
		u    *protocol.Usage
		b    *Budget
		want string
	}{
		{nil, nil, ""},
		{u, nil, "spent 1.2M tokens, $3.40"},
		{unpriced, nil, "spent 5.1k tokens (unpriced: gpt-9)"},
		{u, &Budget{MaxCost: 40}, "spent 1.2M tokens, $3.40 (max_cost $40.00: 8%)"},
		{u, &Budget{MaxCost: 40, MaxTokens: 1_000_000, Reached: "max_tokens 1000000 reached"},
			"spent 1.2M tokens, $3.40 (max_cost $40.00: 8%, max_tokens 1000000: 120%) — max_tokens 1000000 reached"},
		{u, &Budget{MaxTokens: 1_000_000, Reached: "max_tokens 1000000 reached", Paused: true},
			"spent 1.2M tokens, $3.40 (max_tokens 1000000: 120%) — max_tokens 1000000 reached: agents parked until `warden resume`"},
		{u, &Budget{MaxTokens: 1_000_000, Reached: "max_tokens 1000000 reached", Lifted: true}, "spent 1.2M tokens, $3.40 — budget lifted by `warden resume`"},
		{nil, &Budget{MaxCost: 5}, "spent 0 tokens (max_cost $5.00: 0%)"},
	} {
		if got := TeamSpend(c.u, c.b); got != c.want {
			t.Errorf("TeamSpend(%+v, %+v) = %q, want %q", c.u, c.b, got, c.want)
		}
	}
}

// STATUS.md's Spent section: the run's line, then a row per agent and task
// that spent anything; none when nothing was read and no budget is set.
func TestStatusMarkdownHasTheSpentSection(t *testing.T) {
	cost := 0.5
	u := &protocol.Usage{Tokens: protocol.Tokens{Input: 3000, CachedInput: 1000, Output: 200}, CostUSD: &cost}
	s := Snapshot{Team: "t", UpdatedAt: time.Now(), Usage: u, Budget: &Budget{MaxCost: 1},
		Agents: []AgentStatus{{Name: "w1", State: Running, Usage: u}, {Name: "w2", State: Idle}},
		Tasks:  []queue.Status{{ID: "T1", Usage: u}}}
	md := statusMarkdown(s)
	for _, want := range []string{"\n## Spent\n\nspent 3.2k tokens, $0.50 (max_cost $1.00: 50%)\n",
		"| agent w1 | 3200 | 3000 | 1000 | 200 | $0.50 |", "| task T1 | 3200 | 3000 | 1000 | 200 | $0.50 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("STATUS.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "agent w2 |") {
		t.Errorf("an agent that spent nothing has a row:\n%s", md)
	}
	s.Usage, s.Budget, s.Agents[0].Usage, s.Tasks[0].Usage = nil, nil, nil, nil
	if md := statusMarkdown(s); strings.Contains(md, "## Spent") {
		t.Errorf("nothing spent, yet:\n%s", md)
	}
}
