package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/wardenhq/warden/internal/atomicfile"
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
		signal = filepath.Join(*stateDir, config.DefaultSignalFile)
		if snap, err := supervisor.ReadSnapshot(*stateDir); err == nil && snap.SignalFile != "" {
			signal = snap.SignalFile
		}
	case *stateDir == "" && len(pos) == 1:
		team, err := loadTeam(pos[0])
		if err != nil {
			return err
		}
		signal, dir = team.SignalFile, team.StateDir
	default:
		return usageError("usage: warden checkpoint [TEAM.toml | --state-dir DIR]")
	}
	if err := os.MkdirAll(filepath.Dir(signal), 0o700); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	note := fmt.Sprintf("requested by warden checkpoint (pid %d) at %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	if err := atomicfile.Write(signal, []byte(note), 0o600); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	running := supervisor.LockHeld(dir)
	fmt.Fprintf(stdout, "team checkpoint requested: %s\n", signal)
	if !running {
		fmt.Fprintln(stdout, "no warden is running for this team now: the checkpoint runs when it starts")
	}
	return nil
}
