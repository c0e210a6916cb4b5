package config

import (
	"strings"
	"time"
)

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
	DefaultLandAttempts      = 2
)

// LandPrefix begins the id of a land task (land.T3: the land stopped at
// T3, handed to land_by). A [[task]]'s id may not begin with it.
const LandPrefix = "land."

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
	// LandBy is the agent a stopped land is handed to ("": none, a person
	// takes it), LandAttempts how many land tasks one stop gets before it
	// is left for a person.
	LandBy       string
	LandAttempts int
}

// landing reads land, land_verify, land_verify_each, land_verify_timeout,
// land_by and land_attempts; after the agents, whose workspaces it checks,
// and the tasks (tables), whose ids may not be a land task's.
func (d *decoder) landing(t *Team, top table, tables []table) {
	t.Land = top.oneOf("land", t.Land, LandNone, LandBranch, LandFFBase)
	if argv, present, ok := top.argv("land_verify"); present && ok {
		t.LandVerify = argv
	}
	t.LandVerifyEach = top.boolean("land_verify_each", false)
	t.LandVerifyTimeout, _ = top.duration("land_verify_timeout", t.LandVerifyTimeout)
	t.LandAttempts = top.integer("land_attempts", DefaultLandAttempts, 1, 20, "between 1 and 20")
	if by, ok := top.str("land_by"); ok {
		t.LandBy = by
		a, known := t.Agent(by)
		switch {
		case !known:
			d.errorf(top.key("land_by"), "land_by names unknown agent %q", by)
		case t.Land == LandNone:
			d.errorf(top.key("land_by"), "land_by needs land = %q or %q", LandBranch, LandFFBase)
		case t.Workspace(a) != WorkspaceWorktree:
			d.errorf(top.key("land_by"), "land_by names agent %q, which does not work in worktree mode (its land tasks do)", by)
		}
	}
	if t.LandBy != "" {
		for i, task := range t.Tasks {
			if strings.HasPrefix(task.ID, LandPrefix) && i < len(tables) {
				d.errorf(tables[i].key("id"), "task id %q begins with %q, which names land tasks (land_by)", task.ID, LandPrefix)
			}
		}
	}
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
