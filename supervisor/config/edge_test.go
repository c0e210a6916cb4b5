//go:build !e2e

package config

import (
	"strings"
	"testing"
)

// TestParseEdgeCases covers problems easier to read inline than as files.
func TestParseEdgeCases(t *testing.T) {
	const agent = "[[agent]]\nname = \"a\"\ncommand = [\"sh\"]\n"
	cases := []struct {
		name, src string
		want      []string
	}{
		{"empty agent array", "agent = []\n",
			[]string{"t.toml:1:1: a team needs at least one [[agent]]"}},
		{"empty file", "",
			[]string{"t.toml:1:1: a team needs at least one [[agent]]"}},
		{"agent array of numbers", "\nagent = [1, { name = \"a\", command = [\"sh\"] }]\n",
			[]string{"t.toml:2:10: agent[0] must be a table, not integer"}},
		{"signal file is the state dir", "signal_file = \".\"\n" + agent,
			[]string{`t.toml:1:1: signal_file "." must be a relative path inside state_dir`}},
		{"absolute signal file", "signal_file = \"/tmp/x\"\n" + agent,
			[]string{`t.toml:1:1: signal_file "/tmp/x" must be a relative path inside state_dir`}},
		{"stale warning past the default failure", "stale_warning = \"1h\"\n" + agent,
			[]string{"t.toml:1:1: stale_failure (30m0s) must be longer than stale_warning (1h0m0s)"}},
		{"invalid failure is not compared", "stale_warning = \"1h\"\nstale_failure = \"x\"\n" + agent,
			[]string{`t.toml:2:1: stale_failure: invalid duration "x" (want a Go duration such as "30s", "5m" or "1h30m")`}},
		{"blank name", "name = \" \"\n" + agent,
			[]string{"t.toml:1:1: name must not be empty"}},
		{"float max_restarts", agent + "max_restarts = 1.5\n",
			[]string{"t.toml:4:1: max_restarts must be an integer, not float"}},
		{"unknown sub-table of an agent", agent + "[agent.extra]\nx = 1\n",
			[]string{`t.toml:4:1: unknown key "extra" in [[agent]]`}},
		{"unknown dotted key", "x.y = 1\n" + agent,
			[]string{`t.toml:1:1: unknown key "x"`}},
		{"env as a sub-table", agent + "[agent.env]\nA = 1\n",
			[]string{"t.toml:5:1: env.A must be a string, not integer"}},
		{"syntax error position counts characters", "name = \"ü\" x\n",
			[]string{"t.toml:1:12: syntax error: expected a top-level item to end with a newline, comment, or EOF, but got 'x' instead"}},
		{"key defined twice", "name = \"a\"\nname = \"b\"\n",
			[]string{"t.toml:2:1: syntax error: Key 'name' has already been defined."}},
		{"size without a unit", "log_max_size = \"50\"\n" + agent,
			[]string{`t.toml:1:1: log_max_size: invalid size "50" (want a whole number and a unit, such as "50MB", "512KB" or "1GiB")`}},
		{"size with a fraction", "log_max_size = \"1.5GB\"\n" + agent,
			[]string{`t.toml:1:1: log_max_size: invalid size "1.5GB" (want a whole number and a unit, such as "50MB", "512KB" or "1GiB")`}},
		{"size as an integer", "log_max_size = 50000000\n" + agent,
			[]string{`t.toml:1:1: log_max_size must be a size string such as "50MB", not integer`}},
		{"size that overflows", "log_max_size = \"99999999999GB\"\n" + agent,
			[]string{`t.toml:1:1: log_max_size: size "99999999999GB" is too large`}},
		{"stop_at past midnight", "stop_at = \"24:00\"\n" + agent,
			[]string{`t.toml:1:1: stop_at: invalid time "24:00" (want HH:MM in local time, such as "07:00")`}},
		{"stop_at with a sign", "stop_at = \"+7:00\"\n" + agent,
			[]string{`t.toml:1:1: stop_at: invalid time "+7:00" (want HH:MM in local time, such as "07:00")`}},
		{"stop_at as a TOML time", "stop_at = 07:00:00\n" + agent,
			[]string{"t.toml:1:1: stop_at must be a string, not date-time"}},
		{"notify as a table", "[notify]\nevents = \"*\"\n" + agent,
			[]string{"t.toml:1:1: notify must be an array of tables ([[notify]]), not table"}},
		{"notify without events", agent + "[[notify]]\ncommand = [\"x\"]\n",
			[]string{`t.toml:4:1: missing key "events" in [[notify]]`}},
		{"empty blocked_by entry and agent", agent + "[[task]]\nid = \"T\"\nprompt = \"p\"\nagent = \"\"\nblocked_by = [\"\"]\n",
			[]string{"t.toml:7:1: agent must not be empty", "t.toml:8:15: blocked_by[0] must not be empty"}},
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
