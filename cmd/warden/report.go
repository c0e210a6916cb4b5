package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/wardenhq/warden/supervisor/report"
)

// cmdReport prints the night in one page — the run state.json names, from
// the state dir alone (supervisor/report), while the team runs or after —
// as text or JSON. A state dir with no run is exit 1.
func cmdReport(args []string, stdout, stderr io.Writer) error {
	cmd := newTeamCommand("report", "usage: warden report [TEAM.toml | --state-dir DIR] [--json]", stderr)
	asJSON := cmd.Bool("json", false, "print JSON")
	dir, err := cmd.teamDir(args)
	if err != nil {
		return err
	}
	r, err := report.Build(dir, time.Now())
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if !*asJSON {
		return report.WriteText(stdout, r)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err = stdout.Write(append(escapeC1(b), '\n'))
	return err
}
