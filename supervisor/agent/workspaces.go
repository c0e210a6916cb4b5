package agent

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/supervisor/workspace"
)

// Workspaces gives each task of a worktree-mode agent its own git worktree
// and branch (state_dir/worktrees/{task}, branch warden/{team}/{task}),
// started from base or from the branches of the tasks it is blocked by, and
// commits what the agent wrote there. Tasks of shared-mode agents work in
// their agent's dir. A worktree that is no longer the one warden made is
// refused (worktree_refused): nothing is committed from it.
type Workspaces struct {
	git    *workspace.Git
	team   *config.Team
	layout state.Layout
	events *state.EventLog
	printf func(format string, a ...any)

	mu      sync.Mutex
	byTask  map[string]*TaskSpace
	refused map[string]string // task → the reason last reported
	// inflight counts the commits in flight; gate makes its Add and Wait
	// never overlap (a commit begun while CommitAll waits waits for it).
	inflight sync.WaitGroup
	gate     sync.RWMutex
}

// goCommit runs commit in the background, counted for CommitAll.
func (w *Workspaces) goCommit(commit func()) {
	go func() {
		w.gate.RLock()
		w.inflight.Add(1)
		w.gate.RUnlock()
		defer w.inflight.Done()
		commit()
	}()
}

// TaskSpace is one task's worktree.
type TaskSpace struct {
	Repo     workspace.Repo
	Worktree workspace.Worktree
	Base     string

	ws       *Workspaces
	agent    string          // the agent that last took it up (under ws.mu)
	commitMu sync.Mutex      // one commit at a time in a worktree
	warned   map[string]bool // big files already named in a WARNING
}

// NewWorkspaces returns the team's workspaces; events and printf (warden's
// stdout) are where a refused worktree and a file left out of a commit are
// reported.
func NewWorkspaces(git *workspace.Git, team *config.Team, layout state.Layout, events *state.EventLog, printf func(string, ...any)) *Workspaces {
	return &Workspaces{git: git, team: team, layout: layout, events: events, printf: printf,
		byTask: map[string]*TaskSpace{}, refused: map[string]string{}}
}

// Dir is where agent a works on task: its dir, or the task's worktree
// (made or reused). A conflict between the tasks it depends on is a
// *workspace.ConflictError; a worktree that is no longer the one warden
// made, a *workspace.RefusedError (and worktree_refused).
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
		w.report(a.Name, task.ID, err)
		return "", nil, err
	}
	ts := &TaskSpace{Repo: repo, Worktree: wt, Base: base, ws: w, agent: a.Name}
	w.mu.Lock()
	if old := w.byTask[task.ID]; old != nil {
		ts = old // the same worktree: keep its commit lock
		ts.Worktree, ts.agent = wt, a.Name
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

// Branch is the branch of task: warden/{team}/{task}, the team's name made
// a valid ref component (no "..", no leading or trailing '.' or '-', no
// ".lock" ending). The task's id is one already (config checks it).
func (w *Workspaces) Branch(task string) string {
	team := refUnsafe.ReplaceAllString(w.team.Name, "-")
	for strings.Contains(team, "..") {
		team = strings.ReplaceAll(team, "..", ".")
	}
	for team = strings.Trim(team, ".-"); strings.HasSuffix(team, ".lock"); {
		team = strings.Trim(strings.TrimSuffix(team, ".lock"), ".-")
	}
	if team == "" {
		team = "team"
	}
	return "warden/" + team + "/" + task
}

// report emits worktree_refused when err is a *workspace.RefusedError,
// once for each task and reason.
func (w *Workspaces) report(agent, task string, err error) {
	var refused *workspace.RefusedError
	if !errors.As(err, &refused) {
		return
	}
	reason := protocol.Plain(refused.Reason)
	w.mu.Lock()
	again := w.refused[task] == reason
	w.refused[task] = reason
	w.mu.Unlock()
	if !again && w.events != nil {
		w.events.Emit(event.WorktreeRefused, agent, task, "path", refused.Path, "reason", reason)
	}
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
	c, err := ts.Worktree.CommitFiles(ctx, fmt.Sprintf("%s: %s (%d%%)", task, status, progress), body.String())
	if err != nil && ts.ws != nil {
		ts.ws.mu.Lock()
		agent := ts.agent
		ts.ws.mu.Unlock()
		ts.ws.report(agent, task, err)
	}
	ts.warnBig(task, c.Skipped)
	return c.Commit, c.Made, err
}

// warnBig names, once each, the files left out of the task's commits.
func (ts *TaskSpace) warnBig(task string, big []workspace.BigFile) {
	w := ts.ws
	for _, f := range big {
		if ts.warned[f.Path] {
			continue
		}
		if ts.warned == nil {
			ts.warned = map[string]bool{}
		}
		ts.warned[f.Path] = true
		if w != nil && w.printf != nil {
			w.printf("WARNING: %s's work: %s (%s) is larger than %s and is left out of its commits (it stays in the worktree %s)\n",
				task, protocol.Plain(f.Path), workspace.Size(f.Size), workspace.Size(workspace.MaxFileSize), ts.Worktree.Path)
		}
	}
}
