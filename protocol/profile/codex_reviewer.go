package profile

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Codex's approvals reviewer (0.171.0): approvals_reviewer = "user" (a
// person answers) or "auto_review" (a model reviews each request and
// answers it); --approve-for-me is "Route approval requests through
// automatic review using the workspace-write sandbox" (codex --help).

const (
	codexReviewerKey  = "approvals_reviewer"
	codexAutoReview   = "auto_review"
	codexApproveForMe = "--approve-for-me"
	codexInstead      = `remove it and set --ask-for-approval never --sandbox workspace-write, as warden init writes it ` +
		`(docs/agent-clis.md, "Presets"): what the sandbox does not allow is refused, never approved by a model`
)

// codexReviewerOption: -c approvals_reviewer="auto_review" (or --config).
func codexReviewerOption(flag, v string) bool {
	return (flag == "-c" || flag == "--config") && tomlKeyValue(v, codexReviewerKey) == codexAutoReview
}

// codexModelApproves: --approve-for-me; approvals_reviewer = "auto_review"
// given with -c, or, unless -c sets it, in the config.toml of the agent's
// CODEX_HOME (~/.codex).
func codexModelApproves(argv []string, env map[string]string) []string {
	var out []string
	if _, ok := flagValues(argv, codexApproveForMe); ok {
		out = append(out, fmt.Sprintf("%s: %s (Codex's auto_review); %s", codexApproveForMe, ModelApprovesText, codexInstead))
	}
	reviewer, set := "", false
	for _, flag := range []string{"-c", "--config"} {
		values, _ := flagValues(argv, flag)
		for _, v := range values {
			if r := tomlKeyValue(v, codexReviewerKey); r != "" {
				reviewer, set = r, true
			}
		}
	}
	where := `-c approvals_reviewer="auto_review"`
	if !set {
		file := codexConfigFile(env)
		reviewer, where = codexConfigReviewer(file), file+`: approvals_reviewer = "auto_review"`
	}
	if reviewer == codexAutoReview {
		out = append(out, fmt.Sprintf("%s: %s; %s", where, ModelApprovesText, codexInstead))
	}
	return out
}

// codexConfigFile is the config.toml Codex reads for an agent whose team
// file sets env: in its CODEX_HOME, else in ~/.codex.
func codexConfigFile(env map[string]string) string {
	get := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	home := cmp.Or(get("CODEX_HOME"), homeSub(get, ".codex"))
	if home == "" {
		return ""
	}
	return filepath.Join(home, "config.toml")
}

// codexConfigReviewer is approvals_reviewer at the top of config.toml
// (before any [table]: a profile's own value applies only with --profile),
// "" when unset or unreadable.
func codexConfigReviewer(file string) string {
	if file == "" {
		return ""
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[") {
			break
		}
		if v := tomlKeyValue(l, codexReviewerKey); v != "" {
			return v
		}
	}
	return ""
}
