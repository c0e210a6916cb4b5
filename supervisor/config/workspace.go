package config

import "github.com/wardenhq/warden/supervisor/workspace"

// Values of workspace and merge.
const (
	WorkspaceShared   = "shared"   // every agent in its dir (the default)
	WorkspaceWorktree = "worktree" // a git worktree and branch per task
	MergeNone         = "none"     // a completed task's branch stays for review
	MergeFF           = "ff"       // and is fast-forwarded into base when it can be
)

// Defaults of the workspace keys.
const (
	DefaultWorkspace = WorkspaceShared
	DefaultMerge     = MergeNone
)

// Workspace is the agent's effective workspace: its own, else the team's.
func (t *Team) Workspace(a *Agent) string {
	if a != nil && a.Workspace != "" {
		return a.Workspace
	}
	if t.WorkspaceMode == "" {
		return DefaultWorkspace
	}
	return t.WorkspaceMode
}

// workspaces validates that every agent that works in worktrees has its
// dir inside a git work tree (read from .git, without running git), and
// that every task such an agent may take has an id git takes as the last
// component of its branch (warden/{team}/{id}) and its worktree's name:
// `T..1`, `x.lock`, `.hidden` would pass everything else and fail every
// session of the task.
func (d *decoder) workspaces(team *Team, top table, agents, tasks []table) {
	worktreeAgents := map[string]bool{}
	for i := range team.Agents {
		a := &team.Agents[i]
		if team.Workspace(a) == WorkspaceWorktree {
			worktreeAgents[a.Name] = true
		}
		if team.Workspace(a) != WorkspaceWorktree || workspace.Info(a.Dir) != nil {
			continue
		}
		at := "workspace"
		if i < len(agents) {
			if _, own := agents[i].vals["workspace"]; own {
				at = agents[i].key("workspace")
			} else if _, teamKey := top.vals["workspace"]; !teamKey {
				at = agents[i].path
			}
		}
		d.errorf(at, "workspace = %q needs a git repository, but the dir of agent %s (%s) is not in one",
			WorkspaceWorktree, a.Name, a.Dir)
	}
	if len(worktreeAgents) == 0 {
		return
	}
	for i, task := range team.Tasks {
		mayWorktree := task.Agent == "" || worktreeAgents[task.Agent]
		if !mayWorktree || i >= len(tasks) || nameProblem(task.ID) != "" {
			continue
		}
		if p := workspace.RefComponentProblem(task.ID); p != "" {
			d.errorf(tasks[i].key("id"), "task id %q %s: with workspace = %q it names the task's branch (warden/%s/%s) and worktree",
				task.ID, p, WorkspaceWorktree, "{team}", task.ID)
		}
	}
}
