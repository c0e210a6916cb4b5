package profile

import (
	"cmp"
	"strings"
)

// ModelApproves names every setting on an agent's command line (argv) or in
// the configuration its environment (env, the team file's) points the CLI
// at, under which a model, not a person, approves the agent's actions:
// Claude Code's auto mode (its default when no --permission-mode is given),
// Codex's --approve-for-me and approvals_reviewer = "auto_review". Each
// message says what is set and what to set instead, for `warden validate`'s
// warnings (and run's, at its start). None for a CLI without such a setting.
func ModelApproves(name string, argv []string, env map[string]string) []string {
	c := lookup(cmp.Or(name, PlainName))
	if c == nil || c.ModelApproves == nil {
		return nil
	}
	return c.ModelApproves(argv, env)
}

// ModelApprovesText is how every ModelApproves message describes the
// setting's effect.
const ModelApprovesText = "a model approves your agent's actions"

// flagValues are the values argv gives flag, as "--flag v" or "--flag=v",
// in order; found is whether the flag is there at all. A "--" ends the
// flags.
func flagValues(argv []string, flag string) (values []string, found bool) {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			values, found = append(values, v), true
			continue
		}
		if a != flag {
			continue
		}
		found = true
		if i+1 < len(argv) {
			values = append(values, argv[i+1])
			i++
		}
	}
	return values, found
}

// tomlKeyValue is the value of `key = "value"` (or 'value', or bare) in s,
// "" when s sets another key.
func tomlKeyValue(s, key string) string {
	k, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) != key {
		return ""
	}
	v, _, _ = strings.Cut(strings.TrimSpace(v), "#")
	return strings.Trim(strings.TrimSpace(v), `"'`)
}
