package main

import (
	"fmt"
	"io"

	"github.com/wardenhq/warden/supervisor"
	"github.com/wardenhq/warden/supervisor/config"
)

// cmdCheckpoint asks a team for a team checkpoint by creating its signal file.
func cmdCheckpoint(args []string, stdout, stderr io.Writer) error {
	cmd := newTeamCommand("checkpoint", "usage: warden checkpoint [TEAM.toml | --state-dir DIR]", stderr)
	pos, err := cmd.args(args)
	if err != nil {
		return err
	}
	var signal, dir string
	switch stateDir := *cmd.stateDir; {
	case stateDir != "" && len(pos) == 0:
		dir = stateDir
	case stateDir == "" && len(pos) == 1:
		team, err := loadTeam(pos[0])
		if err != nil {
			return err
		}
		signal, dir = team.SignalFile, team.StateDir
	case stateDir == "" && len(pos) == 0:
		var team *config.Team
		if dir, team, err = findTeam(); err != nil {
			return err
		}
		if team != nil {
			signal = team.SignalFile
		}
	default:
		return cmd.badUsage()
	}
	signal, running, err := supervisor.RequestCheckpoint(dir, signal, config.DefaultSignalFile)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "team checkpoint requested: %s\n", signal)
	if !running {
		fmt.Fprintln(stdout, "no warden is running for this team now: the checkpoint runs when it starts")
	}
	return nil
}
