package profile

import (
	"cmp"
	"slices"
	"strings"
)

// UnattendedRule is how one CLI is told, on its command line, to work
// without a person: the flags that do it, alone or with one of the values
// given (research/real-clis.md; README "Unattended"). The zero rule: the
// CLI has no such setting warden knows of.
type UnattendedRule struct {
	// Flags maps a flag to the values that do it (nil: the flag alone does).
	Flags map[string][]string
	// Option reports whether a flag and its value not in Flags do it
	// (Codex's -c approval_policy="never").
	Option func(flag, value string) bool
	// Env reports whether the agent's environment (its team file's env)
	// does it, for a CLI that takes its permissions from a variable.
	Env func(env map[string]string) bool
	// Hint is what to add, for `warden validate`'s warning.
	Hint string
}

// Unattended reports whether argv, an agent's command line, or env, the
// variables its team file sets, give the CLI of profile name a permission
// setting that lets it work without a person answering a dialog for every
// edit or command; when not, hint says what to add. Plain programs have no
// such setting warden knows of: always true.
func Unattended(name string, argv []string, env map[string]string) (ok bool, hint string) {
	c := lookup(cmp.Or(name, PlainName))
	rule := UnattendedRule{}
	if c != nil {
		rule = c.Unattended
	}
	if rule.Flags == nil && rule.Option == nil && rule.Env == nil {
		return true, ""
	}
	if rule.Env != nil && rule.Env(env) {
		return true, ""
	}
	for i := 1; i < len(argv); i++ {
		flag, value, inline := strings.Cut(argv[i], "=")
		if !inline && i+1 < len(argv) {
			value = argv[i+1]
		}
		if rule.Option != nil && rule.Option(flag, value) {
			return true, ""
		}
		values, isFlag := rule.Flags[flag]
		if isFlag && (values == nil || slices.Contains(values, value)) {
			return true, ""
		}
	}
	return false, rule.Hint
}
