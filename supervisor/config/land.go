package config

import "time"

// Values of land.
const (
	LandNone   = "none"    // the default: the tasks' branches stay as they are
	LandBranch = "branch"  // at the end of a run, build warden/{team}/landed
	LandFFBase = "ff-base" // and fast-forward base to it when it can be
)

// Defaults of the land keys.
const (
	DefaultLand              = LandNone
	DefaultLandVerifyTimeout = 10 * time.Minute
)

// Landing is how a team's complete tasks are landed on its integration
// branch, warden/{team}/landed (issue 37): at the end of a run in worktree
// mode (Land "branch" or "ff-base") and by `warden land`.
type Landing struct {
	// Land is "none" (default), "branch" or "ff-base".
	Land string
	// LandVerify is the argv run in the integration worktree (none: the
	// merges are not verified); LandVerifyEach runs it after each merge
	// instead of once after the last; LandVerifyTimeout bounds each run.
	LandVerify        []string
	LandVerifyEach    bool
	LandVerifyTimeout time.Duration
}

// landing reads land, land_verify, land_verify_each and
// land_verify_timeout; after the agents, whose workspaces it checks.
func (d *decoder) landing(t *Team, top table) {
	t.Land = top.oneOf("land", t.Land, LandNone, LandBranch, LandFFBase)
	if argv, present, ok := top.argv("land_verify"); present && ok {
		t.LandVerify = argv
	}
	t.LandVerifyEach = top.boolean("land_verify_each", false)
	t.LandVerifyTimeout, _ = top.duration("land_verify_timeout", t.LandVerifyTimeout)
	if t.Land == LandNone {
		return
	}
	for i := range t.Agents {
		if t.Workspace(&t.Agents[i]) == WorkspaceWorktree {
			return
		}
	}
	d.errorf("land", "land = %q needs workspace = %q (it merges the tasks' branches)", t.Land, WorkspaceWorktree)
}
