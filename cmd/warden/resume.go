package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/control"
)

// cmdResume lets the agents parked at the team's budget (on_budget =
// "pause") go on: every one, or AGENT alone; --max-cost and --max-tokens
// raise the budget, else the one reached no longer applies to the run.
// --account NAME instead ends the usage-limit park of that account (or of
// the account of the agent NAME) at once.
func cmdResume(args []string, stdout, stderr io.Writer) error {
	cmd := newTeamCommand("resume", "usage: warden resume [TEAM.toml | --state-dir DIR] [AGENT] [--max-cost DOLLARS] [--max-tokens N]\n"+
		"       warden resume [TEAM.toml | --state-dir DIR] --account NAME", stderr)
	maxCost := cmd.Float64("max-cost", 0, "the team's max_cost from now on, in dollars (above what the run has spent)")
	maxTokens := cmd.Int64("max-tokens", 0, "the team's max_tokens from now on (above what the run has spent)")
	account := cmd.String("account", "", "end the usage-limit park of this account (or of this agent's account) now")
	dir, rest, err := cmd.team(args)
	if err != nil {
		return err
	}
	if len(rest) > 1 || *maxCost < 0 || *maxTokens < 0 || (*account != "" && (len(rest) > 0 || *maxCost > 0 || *maxTokens > 0)) {
		return cmd.badUsage()
	}
	if *account != "" {
		r, err := control.NewClient(dir).Resume(control.ResumeRequest{Account: *account, Via: "cli"})
		if err != nil {
			return clientError(err)
		}
		fmt.Fprintf(stdout, "resumed %s: the usage-limit park of %s is over\n", strings.Join(r.Agents, ", "), *account)
		return nil
	}
	req := control.ResumeRequest{MaxCost: *maxCost, MaxTokens: *maxTokens, Via: "cli"}
	if len(rest) == 1 {
		req.Agent = rest[0]
	}
	r, err := control.NewClient(dir).Resume(req)
	if err != nil {
		return clientError(err)
	}
	agents := "no agent was parked"
	if len(r.Agents) > 0 {
		agents = "resumed " + strings.Join(r.Agents, ", ")
	}
	switch {
	case r.Lifted:
		fmt.Fprintf(stdout, "%s; the team's budget no longer applies to this run\n", agents)
	case r.MaxCost > 0 || r.MaxTokens > 0:
		var limits []string
		if r.MaxCost > 0 {
			limits = append(limits, "max_cost "+config.Dollars(r.MaxCost))
		}
		if r.MaxTokens > 0 {
			limits = append(limits, fmt.Sprint("max_tokens ", r.MaxTokens))
		}
		fmt.Fprintf(stdout, "%s; the team's budget: %s\n", agents, strings.Join(limits, ", "))
	default:
		fmt.Fprintln(stdout, agents)
	}
	return nil
}
