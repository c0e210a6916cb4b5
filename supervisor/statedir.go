package supervisor

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/land"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/report"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/supervisor/workspace"
)

// Status is a team's state as `warden status` shows it, read from its state
// dir whether a warden runs it or not. Reading it never writes.
type Status struct {
	*state.Snapshot
	StateDir    string                          `json:"state_dir"`
	Checkpoints map[string]*protocol.Checkpoint `json:"checkpoints"`
}

// ReadStatus reads the state dir at root: the snapshot (Running only while
// a warden holds the team's lock) and, with checkpoints, the latest
// checkpoint files as they are on disk.
func ReadStatus(logger hclog.Logger, root string, checkpoints bool) (*Status, error) {
	snap, err := state.ReadSnapshot(root)
	if err != nil {
		return nil, err
	}
	if snap.Running && !state.LockHeld(root) {
		snap.MarkDied() // its supervisor died: no warden holds the lock
	}
	st := &Status{Snapshot: snap, StateDir: root}
	aheadOfBase(logger, snap.Tasks)
	if checkpoints {
		if st.Checkpoints, err = state.ReadCheckpoints(logger, root); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// RequestCheckpoint asks the team whose state dir is root for a team
// checkpoint by creating its signal file, and reports whether a warden runs
// the team now (else the checkpoint runs when one starts). The signal file
// must be inside the state dir, whatever state.json says: signalFile ""
// takes the one state.json names, or the default. The state dir must pass
// the checks of a run (this user's, no one else's to write), and nothing on
// the way is followed through a symbolic link.
func RequestCheckpoint(root, signalFile, defaultName string) (path string, running bool, err error) {
	if signalFile == "" {
		signalFile = filepath.Join(root, defaultName)
		if snap, err := state.ReadSnapshot(root); err == nil && snap.SignalFile != "" {
			signalFile = snap.SignalFile
		}
	}
	if !inside(root, signalFile) {
		return "", false, fmt.Errorf("signal file %s is not inside the state dir %s", signalFile, root)
	}
	if err := safefile.PrepareStateDir(root); err != nil {
		return "", false, fmt.Errorf("checkpoint: %w", err)
	}
	note := state.SignalNote(protocol.CauseManual, fmt.Sprintf("asked for with warden checkpoint (pid %d)", os.Getpid()))
	if err := state.WriteSignal(root, signalFile, note); err != nil {
		return "", false, fmt.Errorf("checkpoint: %w", err)
	}
	return signalFile, state.LockHeld(root), nil
}

// inside reports whether path lies inside dir (both made absolute).
func inside(dir, path string) bool {
	d, err1 := filepath.Abs(dir)
	p, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel)
}

// OpenLog opens warden's own log, logs/warden.log in the state dir at root
// (creating the state dir), rotated at maxSize bytes keeping keep old files
// like the agents' logs (0: their defaults). onError hears of a log that
// cannot be written, and of its recovery.
func OpenLog(root string, maxSize int64, keep int, onError func(error)) (io.WriteCloser, error) {
	d, err := state.Open(root)
	if err != nil {
		return nil, err
	}
	return runner.OpenRotatingLog(d.WardenLog(), maxSize, keep, onError)
}

// aheadOfBase counts, for each task on a branch of its own, the commits it
// has that its base has not.
func aheadOfBase(logger hclog.Logger, tasks []queue.Status) {
	git := workspace.New(logger)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range tasks {
		t := &tasks[i]
		if t.Branch == "" || t.Repo == "" {
			continue
		}
		if repo, err := git.Find(ctx, t.Repo); err == nil {
			t.Ahead, _ = repo.Ahead(ctx, t.Branch, t.Base)
		}
	}
}

// Clean removes the worktrees of the completed tasks of the team whose
// state dir is root (their branches stay), refusing while a warden runs the
// team. It returns the tasks whose worktree it removed.
func Clean(logger hclog.Logger, root string) ([]string, error) {
	if state.LockHeld(root) {
		return nil, fmt.Errorf("a warden runs this team now: stop it first (warden clean never touches a running team)")
	}
	snap, err := state.ReadSnapshot(root)
	if err != nil {
		return nil, err
	}
	git := workspace.New(logger)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	layout := state.NewLayout(root)
	var removed []string
	for _, t := range snap.Tasks {
		if t.State != queue.Complete || t.Repo == "" {
			continue
		}
		path, err := layout.Worktree(t.ID)
		if err != nil {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			continue
		}
		repo, err := git.Find(ctx, t.Repo)
		if err == nil {
			err = repo.Remove(ctx, path)
		}
		if err != nil {
			return removed, fmt.Errorf("clean %s: %w", t.ID, err)
		}
		removed = append(removed, t.ID)
	}
	return removed, nil
}

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
	// What a run's land handed to land_by and completed is merged first,
	// and a land half done goes back to its last verified head.
	rec, err := land.ReadRecord(layout.LandRecord())
	if err != nil {
		logger.Warn("the land's record is not read: the land starts from the branch as it is", "error", err)
	}
	resolved := rec.Resolutions(func(id string) bool {
		for _, ts := range snap.Tasks {
			if ts.ID == id {
				return ts.State == queue.Complete
			}
		}
		return false
	})
	res, err := land.Run(ctx, land.Options{
		Team: snap.Team, Path: layout.Land(), Landing: landing, Tasks: snap.Tasks,
		Git: workspace.New(logger), Log: logger.Named("land"), Resolved: resolved, Good: rec.Good,
		Emit: func(name, task string, kv ...any) { events.Emit(name, "", task, kv...) },
		OnGood: func(head string) {
			rec.Good = head
			if err := rec.Write(root, layout.LandRecord()); err != nil {
				logger.Warn("the land's record is not written", "error", err)
			}
		},
	})
	if err == nil {
		events.Close() // its events written before the report reads them
		if rerr := report.Refresh(root, time.Now()); rerr != nil {
			logger.Warn("report.md not rewritten after the land", "error", rerr)
		}
	}
	return res, err
}
