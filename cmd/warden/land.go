package main

import (
	"context"
	"fmt"
	"io"

	"github.com/wardenhq/warden/supervisor"
	"github.com/wardenhq/warden/supervisor/config"
)

// landUsage is warden land's usage line.
const landUsage = "usage: warden land [TEAM.toml | --state-dir DIR]"

// cmdLand lands a stopped team's complete tasks on its integration branch,
// warden/{team}/landed: LANDED: and NOT LANDED: lines on stdout; exit 0
// when every complete task landed (and land_verify passed), 1 when a
// conflict or a failing land_verify stopped it (or it could not be made),
// 2 bad usage. With --state-dir alone the team file is not known: no
// land_verify is run and base is never moved.
func cmdLand(args []string, stdout, stderr io.Writer) error {
	c := newTeamCommand("land", landUsage, stderr)
	pos, err := c.args(args)
	if err != nil {
		return err
	}
	var dir string
	var team *config.Team
	switch {
	case *c.stateDir != "" && len(pos) == 0:
		dir = *c.stateDir
	case *c.stateDir == "" && len(pos) == 1:
		if team, err = loadTeam(pos[0]); err != nil {
			return err
		}
		dir = team.StateDir
	case *c.stateDir == "" && len(pos) == 0:
		if dir, team, err = findTeam(); err != nil {
			return usageError("%v\n%s", err, landUsage)
		}
	default:
		return c.badUsage()
	}
	landing := config.Landing{Land: config.LandBranch}
	if team != nil {
		landing = team.Landing
		if landing.Land == config.LandNone {
			landing.Land = config.LandBranch // by hand: build the branch; base moves only with ff-base
		}
	} else {
		fmt.Fprintln(stdout, "NOTE: no team file named: land_verify is not run and base is not moved (name TEAM.toml for them)")
	}
	res, err := supervisor.Land(context.Background(), newLogger(stderr, "warn"), dir, landing)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	res.Print(stdout)
	if res.Stop != nil {
		return &exitError{code: 1}
	}
	return nil
}
