package agent

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/supervisor/workspace"
)

// Workspaces gives each task of a worktree-mode agent its own git worktree
// and branch (state_dir/worktrees/{task}, branch warden/{team}/{task}),
// started from base or from the branches of the tasks it is blocked by, and
// commits what the agent wrote there. Tasks of shared-mode agents work in
// their agent's dir.
type Workspaces struct {
	git    *workspace.Git
	team   *config.Team
	layout state.Layout

	mu     sync.Mutex
	byTask map[string]*TaskSpace
	wg     sync.WaitGroup // commits in flight
}

// TaskSpace is one task's worktree.
type TaskSpace struct {
	Repo     workspace.Repo
	Worktree workspace.Worktree
	Base     string

	commitMu sync.Mutex // one commit at a time in a worktree
}

// NewWorkspaces returns the team's workspaces.
func NewWorkspaces(git *workspace.Git, team *config.Team, layout state.Layout) *Workspaces {
	return &Workspaces{git: git, team: team, layout: layout, byTask: map[string]*TaskSpace{}}
}

// Dir is where agent a works on task: its dir, or the task's worktree
// (made or reused). A conflict between the tasks it depends on is a
// *workspace.ConflictError.
func (w *Workspaces) Dir(ctx context.Context, a *config.Agent, task *config.Task) (string, *TaskSpace, error) {
	if task == nil || w.team.Workspace(a) != config.WorkspaceWorktree {
		return a.Dir, nil, nil
	}
	repo, err := w.git.Find(ctx, a.Dir)
	if err != nil {
		return "", nil, err
	}
	base := w.team.Base
	if base == "" {
		if base, err = repo.CurrentBranch(ctx); err != nil {
			return "", nil, fmt.Errorf("base branch: %w", err)
		}
	}
	from := []string{base}
	if len(task.BlockedBy) > 0 {
		from = from[:0]
		for _, dep := range task.BlockedBy {
			if ok, _ := repo.BranchExists(ctx, w.Branch(dep)); ok {
				from = append(from, w.Branch(dep))
			}
		}
		if len(from) == 0 {
			from = []string{base}
		}
	}
	path, err := w.layout.Worktree(task.ID)
	if err != nil {
		return "", nil, err
	}
	wt, err := repo.Prepare(ctx, path, w.Branch(task.ID), from)
	if err != nil {
		return "", nil, err
	}
	ts := &TaskSpace{Repo: repo, Worktree: wt, Base: base}
	w.mu.Lock()
	if old := w.byTask[task.ID]; old != nil {
		ts = old // the same worktree: keep its commit lock
		ts.Worktree = wt
	} else {
		w.byTask[task.ID] = ts
	}
	w.mu.Unlock()
	return wt.Dir, ts, nil
}

// Space is the worktree of task, nil when it has none (yet).
func (w *Workspaces) Space(task string) *TaskSpace {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.byTask[task]
}

// Spaces lists every task's worktree.
func (w *Workspaces) Spaces() map[string]*TaskSpace {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]*TaskSpace, len(w.byTask))
	for k, v := range w.byTask {
		out[k] = v
	}
	return out
}

var refUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Branch is the branch of task: warden/{team}/{task}.
func (w *Workspaces) Branch(task string) string {
	team := strings.Trim(refUnsafe.ReplaceAllString(w.team.Name, "-"), ".-")
	if team == "" {
		team = "team"
	}
	return "warden/" + team + "/" + task
}

// Commit commits what is uncommitted in the worktree, as warden, with the
// subject "T060: <status> (<progress>%)" and the checkpoint's Completed and
// Remaining as body. made is false when there was nothing to commit.
func (ts *TaskSpace) Commit(ctx context.Context, task, status string, progress int, cp *protocol.Checkpoint) (commit string, made bool, err error) {
	ts.commitMu.Lock()
	defer ts.commitMu.Unlock()
	var body strings.Builder
	if cp != nil {
		for _, l := range []struct {
			title string
			items []string
		}{{"Completed:", cp.Completed}, {"Remaining:", cp.Remaining}} {
			if len(l.items) > 0 {
				body.WriteString(l.title + "\n")
				for _, it := range l.items {
					body.WriteString("- " + it + "\n")
				}
			}
		}
	}
	return ts.Worktree.Commit(ctx, fmt.Sprintf("%s: %s (%d%%)", task, status, progress), body.String())
}
