package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	cmd := newTeamCommand("status", "usage: warden status [TEAM.toml | --state-dir DIR] [--json] [--watch]", stderr)
	asJSON := cmd.Bool("json", false, "print JSON")
	watch := cmd.Bool("watch", false, "redraw every 2s until interrupted")
	dir, err := cmd.teamDir(args)
	if err != nil {
		return err
	}
	show := func() error {
		st, err := supervisor.ReadStatus(newLogger(stderr, "error"), dir, *asJSON)
		if errors.Is(err, fs.ErrNotExist) {
			return &exitError{code: 1, err: fmt.Errorf("no run yet: the state dir %s has no state.json (`warden run TEAM.toml` starts one)", dir)}
		}
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

// escapeC1 writes DEL, the C1 controls (U+0080–U+009F, which some
// terminals take as CSI, OSC …) and the invisible characters (U+202E and
// the like, protocol.IsInvisible) of JSON text as \u escapes, which
// encoding/json leaves raw; it escapes the C0 ones itself. They can only
// be inside strings, where the escape means the same.
func escapeC1(b []byte) []byte { return protocol.PlainJSON(b) }
