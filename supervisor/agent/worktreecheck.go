package agent

import (
	"errors"
	"fmt"

	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/workspace"
)

// sessionDir is where the next session of task works, checked before each
// session starts (a restart, a warden restart): the worktree is still the
// one warden made. One the agent deleted is checked out again from the
// task's branch (what was not committed is lost, and a WARNING says so);
// one replaced by a symbolic link, or whose .git is no longer warden's, is
// never followed: worktree_refused, a WARNING, and the task fails (ok
// false). A task without a worktree works in dir.
func (a *Agent) sessionDir(g *Generation, task *config.Task, dir string, ts *TaskSpace) (string, *TaskSpace, bool) {
	if ts == nil {
		return dir, nil, true
	}
	err := ts.Worktree.Verify()
	switch {
	case err == nil:
		return dir, ts, true
	case errors.Is(err, workspace.ErrGone):
		a.log.Warn("worktree deleted: checking it out again from its branch", "task", task.ID, "path", ts.Worktree.Path, console.Printed, true)
		a.d.Team.Printf(a.cfg.Name, "WARNING: the worktree of %s (%s) was deleted: checked out again from branch %s; what was not committed is lost\n",
			task.ID, ts.Worktree.Path, ts.Worktree.Branch)
		return a.workDir(g, task)
	}
	a.d.Workspaces.report(a.cfg.Name, task.ID, err)
	a.refuseWorktree(task, err)
	return "", nil, false
}

// refuseWorktree fails task, whose worktree is no longer the one warden
// made (err, a *workspace.RefusedError): nothing runs or is committed there
// until a person has looked at it.
func (a *Agent) refuseWorktree(task *config.Task, err error) {
	a.log.Error("worktree refused", "task", task.ID, "error", err)
	a.d.Team.Printf(a.cfg.Name, "WARNING: %s\n", protocol.Plain(fmt.Sprintf("%s: %v; no session starts in it and nothing of it is committed", task.ID, err)))
	a.failTask(task, protocol.Plain(err.Error()))
}
