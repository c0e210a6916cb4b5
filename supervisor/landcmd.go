package supervisor

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/land"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/supervisor/workspace"
)

// landTimeout bounds a whole land: its git calls are bounded one by one,
// each land_verify by land_verify_timeout.
const landTimeout = 6 * time.Hour

// Land lands the complete tasks of the team whose state dir is root on its
// integration branch (warden land), refusing while a warden runs the team;
// landing is the team file's land keys (zero when only the state dir is
// known: no land_verify, base never moved). Its events go to the team's
// events.jsonl.
func Land(ctx context.Context, logger hclog.Logger, root string, landing config.Landing) (land.Result, error) {
	if state.LockHeld(root) {
		return land.Result{}, fmt.Errorf("a warden runs this team now: stop it first (warden land never touches a running team)")
	}
	snap, err := state.ReadSnapshot(root)
	if err != nil {
		return land.Result{}, err
	}
	layout := state.NewLayout(root)
	events, err := state.OpenEventLog(logger, layout.Events(), time.Now)
	if err != nil {
		return land.Result{}, err
	}
	defer events.Close()
	ctx, cancel := context.WithTimeout(ctx, landTimeout)
	defer cancel()
	return land.Run(ctx, land.Options{
		Team: snap.Team, Path: layout.Land(), Landing: landing, Tasks: snap.Tasks,
		Git: workspace.New(logger), Log: logger.Named("land"),
		Emit: func(name, task string, kv ...any) { events.Emit(name, "", task, kv...) },
	})
}
