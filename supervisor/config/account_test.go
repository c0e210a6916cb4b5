//go:build !e2e

package config

import (
	"strings"
	"testing"
)

// on_limit and account are read strictly: the two values of on_limit, an
// account of plain text, positions for every mistake; left out, the team
// waits for the reset and each agent has the default account ("").
func TestOnLimitAndAccount(t *testing.T) {
	team, err := Parse("t.toml", []byte("name = \"t\"\non_limit = \"checkpoint-exit\"\n"+
		"[[agent]]\nname = \"a\"\ncommand = [\"x\"]\naccount = \"work\"\n"+
		"[[agent]]\nname = \"b\"\ncommand = [\"x\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if team.OnLimit != OnLimitCheckpointExit || team.Agents[0].Account != "work" || team.Agents[1].Account != "" {
		t.Errorf("on_limit %q, accounts %q %q", team.OnLimit, team.Agents[0].Account, team.Agents[1].Account)
	}
	if d, _ := Parse("t.toml", []byte("[[agent]]\nname = \"a\"\ncommand = [\"x\"]\n")); d == nil || d.OnLimit != OnLimitWait {
		t.Errorf("default on_limit: %+v", d)
	}
	bad := []struct{ src, want string }{
		{"on_limit = \"pause\"\n[[agent]]\nname = \"a\"\ncommand = [\"x\"]\n",
			`t.toml:1:1: unknown on_limit "pause" (want wait or checkpoint-exit)`},
		{"on_limit = 1\n[[agent]]\nname = \"a\"\ncommand = [\"x\"]\n", "t.toml:1:1: on_limit must be a string"},
		{"[[agent]]\nname = \"a\"\ncommand = [\"x\"]\naccount = \"\"\n", "t.toml:4:1: account must not be empty"},
		{"[[agent]]\nname = \"a\"\ncommand = [\"x\"]\naccount = \"a\\nb\"\n", "t.toml:4:1: account \"a\\nb\" contains a control character"},
		{"[[agent]]\nname = \"a\"\ncommand = [\"x\"]\naccount = \"" + strings.Repeat("é", 101) + "\"\n",
			"t.toml:4:1: account is 101 characters: at most 100"},
		{"[[agent]]\nname = \"a\"\ncommand = [\"x\"]\naccount = [\"w\"]\n", "t.toml:4:1: account must be a string"},
	}
	for _, c := range bad {
		_, err := Parse("t.toml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\n: %v, want %q", c.src, err, c.want)
		}
	}
}
