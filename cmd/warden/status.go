package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor"
	"github.com/wardenhq/warden/supervisor/state"
)

// cmdStatus shows the dashboard from a team's state dir, running or not.
func cmdStatus(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state-dir", "", "the team's state directory (instead of TEAM.toml)")
	asJSON := fs.Bool("json", false, "print JSON")
	watch := fs.Bool("watch", false, "redraw every 2s until interrupted")
	dir, err := stateDirArg(fs, args, stateDir, "usage: warden status [TEAM.toml | --state-dir DIR] [--json] [--watch]")
	if err != nil {
		return err
	}
	show := func() error {
		st, err := supervisor.ReadStatus(newLogger(stderr, "error"), dir, *asJSON)
		if err != nil {
			return &exitError{code: 1, err: err}
		}
		if *asJSON {
			b, err := json.MarshalIndent(st, "", "  ")
			if err != nil {
				return fmt.Errorf("status: %w", err)
			}
			_, err = stdout.Write(append(escapeC1(b), '\n'))
			return err
		}
		state.RenderDashboard(stdout, *st.Snapshot, time.Now())
		return nil
	}
	if !*watch {
		return show()
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	for {
		fmt.Fprint(stdout, "\x1b[H\x1b[2J")
		if err := show(); err != nil {
			return err
		}
		select {
		case <-sigs:
			return nil
		case <-time.After(2 * time.Second):
		}
	}
}

// parseArgs parses flags that may come before or after the positional
// arguments, which it returns.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, &exitError{code: 2}
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return pos, nil
}

// stateDirArg resolves the state dir from TEAM.toml or --state-dir, or
// with neither from the current directory (findTeam); flags may come
// before or after the file.
func stateDirArg(fs *flag.FlagSet, args []string, stateDir *string, usage string) (string, error) {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return "", err
	}
	switch {
	case *stateDir != "" && len(pos) == 0:
		return *stateDir, nil
	case *stateDir == "" && len(pos) == 1:
		team, err := loadTeam(pos[0])
		if err != nil {
			return "", err
		}
		return team.StateDir, nil
	case *stateDir == "" && len(pos) == 0:
		dir, _, err := findTeam()
		return dir, err
	}
	return "", usageError("%s", usage)
}

// escapeC1 writes DEL, the C1 controls (U+0080–U+009F, which some
// terminals take as CSI, OSC …) and the invisible characters (U+202E and
// the like, protocol.IsInvisible) of JSON text as \u escapes, which
// encoding/json leaves raw; it escapes the C0 ones itself. They can only
// be inside strings, where the escape means the same.
func escapeC1(b []byte) []byte { return protocol.PlainJSON(b) }
