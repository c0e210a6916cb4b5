package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/wardenhq/warden/supervisor/config"
)

// cmdValidate checks a team file and prints every error with its position
// (exit 2), or its warnings (config.Team.Warnings) and ok (exit 0).
func cmdValidate(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return &exitError{code: 2}
	}
	if fs.NArg() != 1 {
		return usageError("usage: warden validate TEAM.toml")
	}
	team, warnings, err := config.LoadWithWarnings(fs.Arg(0))
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	for _, w := range warnings {
		fmt.Fprintln(stdout, w)
	}
	more := ""
	if len(warnings) > 0 {
		more = fmt.Sprintf(", %d warnings", len(warnings))
	}
	fmt.Fprintf(stdout, "%s: ok: team %q, %d agents, %d tasks%s\n", fs.Arg(0), team.Name, len(team.Agents), len(team.Tasks), more)
	return nil
}

// loadTeam loads a team file; a bad one is a usage error (exit 2).
func loadTeam(path string) (*config.Team, error) {
	team, err := config.Load(path)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	return team, nil
}
