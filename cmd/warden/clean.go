package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor"
)

// cmdClean removes the worktrees of a team's completed tasks; their
// branches stay for review. It refuses while the team runs.
func cmdClean(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("clean", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state-dir", "", "the team's state directory (instead of TEAM.toml)")
	dir, err := stateDirArg(fs, args, stateDir, "usage: warden clean [TEAM.toml | --state-dir DIR]")
	if err != nil {
		return err
	}
	removed, err := supervisor.Clean(newLogger(stderr, "warn"), dir)
	for _, id := range removed {
		fmt.Fprintf(stdout, "removed the worktree of %s (its branch stays)\n", protocol.Plain(id))
	}
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if len(removed) == 0 {
		fmt.Fprintln(stdout, "no worktree of a completed task to remove")
	}
	return nil
}
