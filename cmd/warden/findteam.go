package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wardenhq/warden/supervisor/config"
)

// findTeam is the team of the current directory, for the commands that
// take TEAM.toml or --state-dir DIR when given neither: ./.warden when it
// is a directory (the default state dir, and warden wrap's), else the one
// *.toml here that is a valid team file (other TOML files, a pyproject.toml,
// are not teams). team is nil when the state dir was found directly.
func findTeam() (stateDir string, team *config.Team, err error) {
	if fi, err := os.Stat(config.DefaultStateDir); err == nil && fi.IsDir() {
		abs, err := filepath.Abs(config.DefaultStateDir)
		if err != nil {
			return "", nil, fmt.Errorf("state dir: %w", err)
		}
		return abs, nil, nil
	}
	files, _ := filepath.Glob("*.toml")
	var names, invalid []string
	for _, f := range files {
		t, err := config.Load(f)
		if err != nil {
			invalid = append(invalid, f)
			continue
		}
		names, team = append(names, f), t
	}
	switch len(names) {
	case 1:
		return team.StateDir, team, nil
	case 0:
		msg := "no team here: no ./" + config.DefaultStateDir + " and no team file (*.toml) in this directory"
		if len(invalid) > 0 {
			msg += " (not valid team files: " + strings.Join(invalid, ", ") + ")"
		}
		return "", nil, usageError("%s; name TEAM.toml or --state-dir DIR", msg)
	}
	return "", nil, usageError("%d team files here (%s): name one, or --state-dir DIR", len(names), strings.Join(names, ", "))
}

// findTeamFile is the team file `warden validate` checks when given none:
// the one *.toml here that is a valid team file, else ./team.toml (what
// warden init writes), invalid as it may be — what validate is for.
func findTeamFile() (string, error) {
	files, _ := filepath.Glob("*.toml")
	var valid []string
	for _, f := range files {
		if _, err := config.Load(f); err == nil {
			valid = append(valid, f)
		}
	}
	switch {
	case len(valid) == 1:
		return valid[0], nil
	case len(valid) > 1:
		return "", usageError("%d team files here (%s): name one", len(valid), strings.Join(valid, ", "))
	}
	if fi, err := os.Stat("team.toml"); err == nil && fi.Mode().IsRegular() {
		return "team.toml", nil
	}
	msg := "no team file here: no valid team file (*.toml) and no team.toml in this directory"
	if len(files) > 0 {
		msg += " (not team files: " + strings.Join(files, ", ") + ")"
	}
	return "", usageError("%s; name TEAM.toml", msg)
}
