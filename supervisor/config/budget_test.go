//go:build !e2e

package config

import (
	"strings"
	"testing"

	"github.com/wardenhq/warden/supervisor/usage"
)

// The budget keys: max_cost, max_tokens, cost_warning, on_budget and
// [[price]] at the top, max_cost and max_tokens per task; none by default
// (cost_warning 80, on_budget checkpoint-exit), each strict like every key.
func TestBudgetKeys(t *testing.T) {
	src := "max_cost = 40\nmax_tokens = 50_000_000\ncost_warning = 75\non_budget = \"pause\"\n\n" +
		"[[price]]\nmodel = \"claude-sonnet-*\"\ninput = 3\ncached_input = 0.3\ncache_write = 3.75\noutput = 15.0\n\n" +
		"[[price]]\nmodel = \"gpt-*\"\ninput = 1.25\noutput = 10\n\n" +
		"[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\n\n" +
		"[[task]]\nid = \"T1\"\nprompt = \"p\"\nmax_cost = 5.5\n\n[[task]]\nid = \"T2\"\nprompt = \"p\"\nmax_tokens = 2_000_000\n"
	team, err := Parse("t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := TeamBudget{Budget: Budget{MaxCost: 40, MaxTokens: 50_000_000}, CostWarning: 75, OnBudget: BudgetPause,
		Prices: usage.Prices{{Model: "claude-sonnet-*", Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15},
			{Model: "gpt-*", Input: 1.25, Output: 10}}}
	if got := team.TeamBudget; got.Budget != want.Budget || got.CostWarning != want.CostWarning || got.OnBudget != want.OnBudget ||
		len(got.Prices) != 2 || got.Prices[0] != want.Prices[0] || got.Prices[1] != want.Prices[1] {
		t.Errorf("team budget %+v, want %+v", got, want)
	}
	if team.Tasks[0].Budget != (Budget{MaxCost: 5.5}) || team.Tasks[1].Budget != (Budget{MaxTokens: 2_000_000}) {
		t.Errorf("task budgets %+v and %+v", team.Tasks[0].Budget, team.Tasks[1].Budget)
	}
	def, err := Parse("t.toml", []byte("[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\n[[task]]\nid = \"T1\"\nprompt = \"p\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if def.Budget.Set() || def.Tasks[0].Budget.Set() || def.CostWarning != 80 || def.OnBudget != "checkpoint-exit" || def.Prices != nil {
		t.Errorf("defaults: %+v, task %+v", def.TeamBudget, def.Tasks[0].Budget)
	}
}

func TestBudgetKeysInvalid(t *testing.T) {
	const agent = "[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\n"
	const task = "[[task]]\nid = \"T1\"\nprompt = \"p\"\n"
	cases := []struct {
		name, src string
		want      []string
	}{
		{"max_cost zero", "max_cost = 0\n" + agent, []string{"t.toml:1:1: max_cost must be positive, not 0"}},
		{"max_cost negative", "max_cost = -5.0\n" + agent, []string{"t.toml:1:1: max_cost must be positive, not -5"}},
		{"max_cost as a string", "max_cost = \"$5\"\n" + agent, []string{"t.toml:1:1: max_cost must be a number, not string"}},
		{"max_cost infinite", "max_cost = inf\n" + agent, []string{"t.toml:1:1: max_cost must be a finite amount, not +Inf"}},
		{"max_tokens zero", "max_tokens = 0\n" + agent, []string{"t.toml:1:1: max_tokens must be 1 or more, not 0"}},
		{"max_tokens a float", "max_tokens = 2e6\n" + agent, []string{"t.toml:1:1: max_tokens must be an integer, not float"}},
		{"cost_warning over 100", "cost_warning = 120\n" + agent, []string{"t.toml:1:1: cost_warning must be between 1 and 100, not 120"}},
		{"on_budget unknown", "on_budget = \"kill\"\n" + agent,
			[]string{`t.toml:1:1: unknown on_budget "kill" (want checkpoint-exit or pause)`}},
		{"task max_cost zero", agent + task + "max_cost = 0.0\n", []string{"t.toml:7:1: max_cost must be positive, not 0"}},
		{"task cost_warning", agent + task + "cost_warning = 50\n", []string{`t.toml:7:1: unknown key "cost_warning" in [[task]]`}},
		{"price without model", "[[price]]\ninput = 3\noutput = 15\n" + agent, []string{`t.toml:1:1: missing key "model" in [[price]]`}},
		{"price without output", "[[price]]\nmodel = \"m\"\ninput = 3\n" + agent, []string{`t.toml:1:1: missing key "output" in [[price]]`}},
		{"price bad glob", "[[price]]\nmodel = \"claude-[\"\ninput = 3\noutput = 15\n" + agent,
			[]string{`t.toml:2:1: model "claude-[" is not a valid glob`}},
		{"price negative", "[[price]]\nmodel = \"m\"\ninput = -1\noutput = 15\n" + agent,
			[]string{"t.toml:3:1: input must be 0 or more, not -1"}},
		{"price unknown key", "[[price]]\nmodel = \"m\"\ninput = 1\noutput = 15\ncached = 0.1\n" + agent,
			[]string{`t.toml:5:1: unknown key "cached" in [[price]]`}},
		{"price as a table", "[price]\nmodel = \"m\"\n" + agent,
			[]string{`t.toml:1:1: price must be an array of tables ([[price]]), not table`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.toml", []byte(c.src))
			es, ok := AsErrors(err)
			if !ok {
				t.Fatalf("Parse error = %v, want Errors", err)
			}
			if got, want := es.Error(), strings.Join(c.want, "\n"); got != want {
				t.Errorf("errors:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
