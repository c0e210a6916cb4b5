package agent

import (
	"context"
	"fmt"
	"os"

	"github.com/wardenhq/warden/supervisor/config"
)

// Retired is what Retire did with an earlier run's worktree of a task.
type Retired struct {
	Task   string
	Branch string // the earlier run's branch, under its new name
	Commit string // the work it held uncommitted, committed first ("": none)
}

// Retire puts an earlier run's worktree and branch of task aside, for a
// new run that starts the task from base: what was uncommitted in the
// worktree is committed to its branch, the worktree removed, and the
// branch renamed {branch}.run-{run} — kept for review, never the new run's
// state. A task with no branch from before is left alone (ok false). A
// worktree that is no longer the one warden made is neither committed nor
// removed (worktree_refused, and the error says why).
func (w *Workspaces) Retire(ctx context.Context, a *config.Agent, task *config.Task, run string) (r Retired, ok bool, err error) {
	repo, err := w.git.Find(ctx, a.Dir)
	if err != nil {
		return r, false, err
	}
	branch := w.Branch(task.ID)
	if exists, err := repo.BranchExists(ctx, branch); err != nil || !exists {
		return r, false, err
	}
	path, err := w.layout.Worktree(task.ID)
	if err != nil {
		return r, false, err
	}
	r = Retired{Task: task.ID, Branch: branch + ".run-" + run}
	if _, err := os.Lstat(path); err == nil {
		wt, err := repo.Prepare(ctx, path, branch, nil)
		if err != nil {
			w.report(a.Name, task.ID, err)
			return r, false, fmt.Errorf("taking up the earlier run's worktree of %s: %w", task.ID, err)
		}
		commit, made, err := wt.Commit(ctx, fmt.Sprintf("%s: what run %s left uncommitted", task.ID, run), "")
		if err != nil {
			w.report(a.Name, task.ID, err)
			return r, false, fmt.Errorf("committing what the earlier run left in %s: %w", path, err)
		}
		if made {
			r.Commit = commit
		}
		if err := repo.Remove(ctx, path); err != nil {
			w.report(a.Name, task.ID, err)
			return r, false, err
		}
	}
	if err := repo.RenameBranch(ctx, branch, r.Branch); err != nil {
		return r, false, err
	}
	w.mu.Lock()
	delete(w.byTask, task.ID)
	w.mu.Unlock()
	return r, true, nil
}
