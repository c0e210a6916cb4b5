package main

import (
	"fmt"
	"io"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor"
)

// cmdClean removes the worktrees of a team's completed tasks; their
// branches stay for review. It refuses while the team runs.
func cmdClean(args []string, stdout, stderr io.Writer) error {
	dir, err := newTeamCommand("clean", "usage: warden clean [TEAM.toml | --state-dir DIR]", stderr).teamDir(args)
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
