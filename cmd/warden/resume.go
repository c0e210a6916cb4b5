package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
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
		if errors.Is(err, control.ErrNotRunning) {
			return clientError(notRunning(dir, teamFileArg(args), err))
		}
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
	if errors.Is(err, control.ErrNotRunning) {
		return clientError(notRunning(dir, teamFileArg(args), err))
	}
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

// notRunning is err (no warden runs the team) with what a person does
// next: a run that stopped, or whose warden died, is carried on by
// `warden run TEAM.toml` — warden resume only lets a running team's parked
// agents go on.
func notRunning(dir, teamFile string, err error) error {
	snap, serr := state.ReadSnapshot(dir)
	if serr != nil {
		return err
	}
	run := "`warden run " + cmp.Or(teamFile, "TEAM.toml") + "`"
	open := 0
	for _, t := range snap.Tasks {
		if t.State != queue.Complete && t.State != queue.Failed {
			open++
		}
	}
	switch {
	case snap.Ended == state.EndedFinished:
		return fmt.Errorf("%w: its run %s finished; there is nothing to resume (%s starts a new run)", err, snap.RunID, run)
	case snap.Ended == state.EndedStopped:
		return fmt.Errorf("%w: its run %s stopped with %s open; %s carries it on from their checkpoints", err, snap.RunID, count(open, "task"), run)
	}
	return fmt.Errorf("%w: its run %s did not stop (its warden died) with %s open; %s carries it on from their checkpoints",
		err, snap.RunID, count(open, "task"), run)
}

// teamFileArg is the TEAM.toml named in args, "" when none is.
func teamFileArg(args []string) string {
	for _, a := range args {
		if strings.HasSuffix(strings.ToLower(a), ".toml") && !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}
