package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/wardenhq/warden/supervisor/report"
)

// cmdReport prints the night in one page — the run state.json names, from
// the state dir alone (supervisor/report), while the team runs or after —
// as text or JSON. A state dir with no run is exit 1.
func cmdReport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state-dir", "", "the team's state directory (instead of TEAM.toml)")
	asJSON := fs.Bool("json", false, "print JSON")
	dir, err := stateDirArg(fs, args, stateDir, "usage: warden report [TEAM.toml | --state-dir DIR] [--json]")
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
