package profile

import "strings"

// unattendedRule is how one CLI is told, on its command line, to work
// without a person: the flags that do it, alone or with one of the values
// given (research/real-clis.md; README "Unattended").
type unattendedRule struct {
	flags  map[string][]string // flag → values that do it (nil: the flag alone does)
	config func(value string) bool
	hint   string // what to add, for the warning
}

var unattendedRules = map[string]unattendedRule{
	"claude": {
		flags: map[string][]string{
			"--permission-mode":              {"acceptEdits", "auto", "bypassPermissions", "dontAsk"},
			"--dangerously-skip-permissions": nil,
			"--allowedTools":                 nil,
			"--allowed-tools":                nil,
		},
		hint: `--permission-mode acceptEdits, and --allowedTools "Bash(go test *)" for the commands you trust`,
	},
	"codex": {
		flags: map[string][]string{
			"--ask-for-approval": {"never"},
			"-a":                 {"never"},
			"--full-auto":        nil,
			"--yolo":             nil,
			"--dangerously-bypass-approvals-and-sandbox": nil,
		},
		// -c approval_policy="never"
		config: func(v string) bool {
			k, val, ok := strings.Cut(v, "=")
			return ok && strings.TrimSpace(k) == "approval_policy" && strings.Contains(val, "never")
		},
		hint: "--ask-for-approval never --sandbox workspace-write",
	},
	"gemini": {
		flags: map[string][]string{
			"--approval-mode": {"auto_edit", "yolo"},
			"--yolo":          nil,
			"-y":              nil,
			"--policy":        nil,
			"--allowed-tools": nil,
		},
		hint: "--approval-mode auto_edit, or a --policy file that allows the commands you trust",
	},
}

// Unattended reports whether argv, an agent's command line, gives the CLI
// of profile name a permission setting that lets it work without a person
// answering a dialog for every edit or command; when not, hint says what to
// add. Plain programs have no such setting warden knows of: always true.
func Unattended(name string, argv []string) (ok bool, hint string) {
	rule, known := unattendedRules[name]
	if !known {
		return true, ""
	}
	for i := 1; i < len(argv); i++ {
		flag, value, inline := strings.Cut(argv[i], "=")
		if !inline && i+1 < len(argv) {
			value = argv[i+1]
		}
		if (flag == "-c" || flag == "--config") && rule.config != nil && rule.config(value) {
			return true, ""
		}
		values, isFlag := rule.flags[flag]
		if !isFlag {
			continue
		}
		if values == nil {
			return true, ""
		}
		for _, v := range values {
			if value == v {
				return true, ""
			}
		}
	}
	return false, rule.hint
}
