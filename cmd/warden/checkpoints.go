package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wardenhq/warden/supervisor/state"
)

// cmdCheckpoints lists the checkpoint history of a team, newest first:
// every record the retention policy kept, of one task or all.
func cmdCheckpoints(args []string, stdout, stderr io.Writer) error {
	cmd := newTeamCommand("checkpoints", "usage: warden checkpoints [TEAM.toml | --state-dir DIR] [TASK] [--json]", stderr)
	asJSON := cmd.Bool("json", false, "print JSON")
	pos, err := cmd.args(args)
	if err != nil {
		return err
	}
	var dir, task string
	switch stateDir := *cmd.stateDir; {
	case stateDir != "" && len(pos) <= 1:
		dir = stateDir
		if len(pos) == 1 {
			task = pos[0]
		}
	case stateDir == "" && (len(pos) == 0 || (len(pos) == 1 && !isTeamFile(pos[0]))):
		if dir, _, err = findTeam(); err != nil {
			return err
		}
		if len(pos) == 1 {
			task = pos[0]
		}
	case stateDir == "" && (len(pos) == 1 || len(pos) == 2):
		team, err := loadTeam(pos[0])
		if err != nil {
			return err
		}
		dir = team.StateDir
		if len(pos) == 2 {
			task = pos[1]
		}
	default:
		return cmd.badUsage()
	}
	entries, err := state.ReadHistory(dir, task)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(entries)
	}
	if len(entries) == 0 {
		fmt.Fprintln(stdout, "no checkpoints yet")
		return nil
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	current := ""
	if snap, err := state.ReadSnapshot(dir); err == nil {
		current = snap.RunID
	}
	fmt.Fprintln(w, "TIME\tTASK\tAGENT\tTRIGGER\tSTATUS\tPROGRESS\tCHECKPOINT ID\tRUN")
	for _, e := range entries {
		trigger := e.Trigger
		if e.Cause != "" {
			trigger += " (" + e.Cause + ")"
		}
		run := e.Run
		switch {
		case run == "":
			run = "-"
		case run == current:
			run += " (this run)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d%%\t%s\t%s\n", e.Time.Local().Format(time.DateTime), e.Task, e.Agent,
			trigger, e.Status, e.Progress, e.ID, run)
	}
	return w.Flush()
}

// isTeamFile tells a TEAM.toml argument from a task id: a .toml name, or a
// file that exists.
func isTeamFile(arg string) bool {
	if strings.HasSuffix(arg, ".toml") {
		return true
	}
	fi, err := os.Stat(arg)
	return err == nil && fi.Mode().IsRegular()
}
