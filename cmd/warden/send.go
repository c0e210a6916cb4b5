package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/face"
)

// cmdSend types a text into an agent with its profile's verified submit,
// at its next turn boundary; it prints what happened.
func cmdSend(args []string, stdout, stderr io.Writer) error {
	cmd := newTeamCommand("send", "usage: warden send [TEAM.toml | --state-dir DIR] AGENT [--force] [--wait D] TEXT… (TEXT - reads stdin; words after -- are text)", stderr)
	force := cmd.Bool("force", false, "type the text and Enter even into a dialog the agent waits on")
	wait := cmd.Duration("wait", 5*time.Minute, "how long to wait for the agent's turn to end")
	var words []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, words = args[:i], args[i+1:]
	}
	dir, rest, err := cmd.team(args)
	if err != nil {
		return err
	}
	rest = append(rest, words...)
	if len(rest) < 2 {
		return cmd.badUsage()
	}
	agent, text := rest[0], strings.Join(rest[1:], " ")
	if len(rest) == 2 && rest[1] == "-" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return fmt.Errorf("send: read stdin: %w", err)
		}
		text = strings.TrimRight(string(b), "\n")
	}
	if strings.TrimSpace(text) == "" {
		return usageError("send: the text is empty")
	}
	res, err := control.NewClient(dir).Send(agent, text, *force, *wait)
	if err != nil {
		return clientError(err)
	}
	if res.Outcome == face.Submitted {
		fmt.Fprintln(stdout, res.Outcome)
		return nil
	}
	fmt.Fprintf(stdout, "%s: %s\n", res.Outcome, res.Reason)
	return &exitError{code: 1}
}

// cmdRestart restarts one agent: a last checkpoint request, then a new
// session from that checkpoint.
func cmdRestart(args []string, stdout, stderr io.Writer) error {
	cmd := newTeamCommand("restart", "usage: warden restart [TEAM.toml | --state-dir DIR] AGENT", stderr)
	dir, rest, err := cmd.team(args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return cmd.badUsage()
	}
	fmt.Fprintf(stdout, "restarting %s: a last checkpoint request, then a new session from it…\n", rest[0])
	r, err := control.NewClient(dir).Restart(rest[0])
	if err != nil {
		return clientError(err)
	}
	from := "no checkpoint of this run"
	if r.Checkpoint != "" {
		from = "checkpoint " + r.Checkpoint
	}
	fmt.Fprintf(stdout, "restarted %s: pid %d, session %s, from %s\n", r.Agent, r.Pid, r.Session, from)
	return nil
}

// cmdStop asks the team for a team checkpoint and to exit, and waits until
// warden is done.
func cmdStop(args []string, stdout, stderr io.Writer) error {
	cmd := newTeamCommand("stop", "usage: warden stop [TEAM.toml | --state-dir DIR] [--now] [--no-wait]", stderr)
	now := cmd.Bool("now", false, "skip the last checkpoint requests: stop the agents, write the handoff, exit")
	noWait := cmd.Bool("no-wait", false, "return once warden took the request")
	dir, rest, err := cmd.team(args)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return cmd.badUsage()
	}
	c := control.NewClient(dir)
	ps, err := c.PS()
	if err != nil {
		return clientError(err)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	how := "a team checkpoint (every busy agent asked for a last checkpoint), then exit"
	if *now {
		how = "the agents stopped without last checkpoint requests, the handoff written, then exit"
	}
	fmt.Fprintf(stdout, "stopping team %s (warden pid %d): %s\n", ps.Team, ps.Pid, how)
	err = c.Stop(ctx, *now, !*noWait)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(stdout, "no longer waiting: warden goes on stopping")
	case err != nil:
		return clientError(err)
	case !*noWait:
		fmt.Fprintln(stdout, "warden is done")
	}
	return nil
}
