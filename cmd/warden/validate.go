package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/wardenhq/warden/supervisor/config"
)

// cmdValidate checks a team file and prints every error with its position.
func cmdValidate(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return &exitError{code: 2}
	}
	if fs.NArg() != 1 {
		return usageError("usage: warden validate TEAM.toml")
	}
	team, err := loadTeam(fs.Arg(0))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: ok: team %q, %d agents, %d tasks\n", fs.Arg(0), team.Name, len(team.Agents), len(team.Tasks))
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
