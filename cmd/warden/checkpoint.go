package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/wardenhq/warden/supervisor"
	"github.com/wardenhq/warden/supervisor/config"
)

// cmdCheckpoint asks a team for a team checkpoint by creating its signal file.
func cmdCheckpoint(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("checkpoint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state-dir", "", "the team's state directory (instead of TEAM.toml)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	var signal, dir string
	switch {
	case *stateDir != "" && len(pos) == 0:
		dir = *stateDir
	case *stateDir == "" && len(pos) == 1:
		team, err := loadTeam(pos[0])
		if err != nil {
			return err
		}
		signal, dir = team.SignalFile, team.StateDir
	case *stateDir == "" && len(pos) == 0:
		var team *config.Team
		if dir, team, err = findTeam(); err != nil {
			return err
		}
		if team != nil {
			signal = team.SignalFile
		}
	default:
		return usageError("usage: warden checkpoint [TEAM.toml | --state-dir DIR]")
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
