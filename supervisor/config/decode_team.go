package config

import (
	"path/filepath"
	"strings"
)

// team validates the top level of the document and everything under it. The
// result is only meaningful when no error was recorded: agents and tasks with
// problems are kept in it so that references to them are checked too.
func (d *decoder) team(abs string, doc map[string]any) *Team {
	top := table{d: d, vals: doc}
	top.unknown("name", "state_dir", "checkpoint_interval", "checkpoint_timeout",
		"shutdown_timeout", "stale_warning", "stale_failure", "idle_after", "idle_nudges", "signal_file",
		"context_threshold", "after_team_checkpoint", "usage_limit_wait",
		"on_dialog", "dialog_timeout", "on_limit", "max_runtime", "stop_at", "log_max_size", "log_keep",
		"max_running", "memory_floor", "max_cost", "max_tokens", "cost_warning", "on_budget", "price", "workspace", "base", "merge", "on_overlap", "review_by", "max_review_rounds", "land", "land_verify", "land_verify_each", "land_verify_timeout", "land_by", "land_attempts", "sandbox", "holder", "orphan_timeout", "notify", "retention", "agent", "task")

	def := Defaults()
	t := &def
	t.Path = abs
	t.Name = strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	if name, ok := top.nonEmpty("name"); ok {
		t.Name = name
	}
	d.plainText(top.key("name"), "team name", t.Name)
	t.StateDir = d.resolve(t.StateDir)
	if dir, ok := top.nonEmpty("state_dir"); ok {
		t.StateDir = d.resolve(dir)
	}
	d.stateDir(t, top)
	t.CheckpointInterval, _ = top.duration("checkpoint_interval", t.CheckpointInterval)
	t.CheckpointTimeout, _ = top.duration("checkpoint_timeout", t.CheckpointTimeout)
	t.ShutdownTimeout, _ = top.duration("shutdown_timeout", t.ShutdownTimeout)
	var warnOK, failOK bool
	t.StaleWarning, warnOK = top.duration("stale_warning", t.StaleWarning)
	t.StaleFailure, failOK = top.duration("stale_failure", t.StaleFailure)
	if warnOK && failOK && t.StaleFailure <= t.StaleWarning {
		at := "stale_failure"
		if _, ok := doc[at]; !ok {
			at = "stale_warning"
		}
		d.errorf(at, "stale_failure (%s) must be longer than stale_warning (%s)", t.StaleFailure, t.StaleWarning)
	}
	d.idle(t, top) // idle.go
	t.SignalFile = filepath.Join(t.StateDir, DefaultSignalFile)
	if sf, ok := top.nonEmpty("signal_file"); ok {
		if !filepath.IsLocal(sf) || filepath.Clean(sf) == "." {
			d.errorf("signal_file", "signal_file %q must be a relative path inside state_dir", sf)
		} else {
			t.SignalFile = filepath.Join(t.StateDir, sf)
		}
	}
	t.UsageLimitWait, _ = top.duration("usage_limit_wait", t.UsageLimitWait)
	t.ContextThreshold = top.integer("context_threshold", int64(t.ContextThreshold), 1, 100, "between 1 and 100")
	t.AfterTeamCheckpoint = top.oneOf("after_team_checkpoint", t.AfterTeamCheckpoint, AfterRehydrate, AfterExit)
	t.OnDialog = top.oneOf("on_dialog", t.OnDialog, DialogWait, DialogDeny)
	t.DialogTimeout, _ = top.duration("dialog_timeout", t.DialogTimeout)
	t.OnLimit = top.oneOf("on_limit", t.OnLimit, OnLimitWait, OnLimitCheckpointExit)
	t.MaxRuntime, _ = top.duration("max_runtime", t.MaxRuntime)
	t.StopAt = top.clock("stop_at")
	t.LogMaxSize = top.size("log_max_size", t.LogMaxSize, MinLogMaxSize, "1MB")
	t.LogKeep = top.integer("log_keep", int64(t.LogKeep), 1, 1<<31-1, "1 or more")
	t.MaxRunning = top.integer("max_running", 0, 1, 1<<31-1, "1 or more")
	t.MemoryFloor = top.size("memory_floor", 0, MinMemoryFloor, "1MB")

	t.TeamBudget = d.teamBudget(top)
	t.Retention = d.retention(top)
	t.WorkspaceMode = top.oneOf("workspace", t.WorkspaceMode, WorkspaceShared, WorkspaceWorktree)
	if base, ok := top.nonEmpty("base"); ok {
		t.Base = base
	}
	t.Merge = top.oneOf("merge", t.Merge, MergeNone, MergeFF)
	t.OnOverlap = top.oneOf("on_overlap", t.OnOverlap, OverlapWarn, OverlapSerialize)
	t.Sandbox = top.oneOf("sandbox", t.Sandbox, SandboxBox, SandboxOff)
	t.Holder = top.boolean("holder", t.Holder)
	t.OrphanTimeout, _ = top.duration("orphan_timeout", t.OrphanTimeout)
	rules, _ := d.tableArray(top, "notify")
	for _, r := range rules {
		n := d.notify(r)
		d.notifyPaths(r, &n) // paths.go
		t.Notify = append(t.Notify, n)
	}

	agents, agentsOK := d.tableArray(top, "agent")
	for _, a := range agents {
		t.Agents = append(t.Agents, d.agent(a))
	}
	if agentsOK && len(agents) == 0 {
		d.errorf("agent", "a team needs at least one [[agent]]") // at agent = [] if written so
	}
	d.reviewTeam(t, top) // review.go
	tasks, _ := d.tableArray(top, "task")
	for _, tk := range tasks {
		task := d.task(tk)
		d.reviewTask(&task, tk, t.ReviewBy)
		t.Tasks = append(t.Tasks, task)
	}
	d.crossCheck(t, tasks)
	d.reviewCheck(t, top, tasks)
	d.workspaces(t, top, agents, tasks)
	d.landing(t, top, tasks) // land.go
	return t
}

// tableArray returns the tables of [[name]] (or name = [{…}, …]); ok is false
// when name has another type (reported).
func (d *decoder) tableArray(top table, name string) ([]table, bool) {
	v, present := top.vals[name]
	if !present {
		return nil, true
	}
	var maps []map[string]any
	switch v := v.(type) {
	case []map[string]any:
		maps = v
	case []any:
		for i, e := range v {
			m, isMap := e.(map[string]any)
			if !isMap {
				d.errorf(pathIndex(name, i), "%s[%d] must be a table, not %s", name, i, tomlType(e))
				continue
			}
			maps = append(maps, m)
		}
		if len(maps) < len(v) {
			return nil, false
		}
	default:
		d.errorf(name, "%s must be an array of tables ([[%s]]), not %s", name, name, tomlType(v))
		return nil, false
	}
	tables := make([]table, 0, len(maps))
	for i, m := range maps {
		tables = append(tables, table{d: d, vals: m, path: pathIndex(name, i), where: " in [[" + name + "]]"})
	}
	return tables, true
}

// name returns the agent name or task id at key k of t, reporting a missing,
// badly typed, unusable or duplicate one. An unusable or duplicate name is
// still returned, so that references to it do not add errors of their own.
func (d *decoder) name(t table, k, kind string) (string, bool) {
	if _, present := t.vals[k]; !present {
		d.errorf(t.path, "missing key %q%s", k, t.where)
		return "", false
	}
	s, ok := t.str(k)
	if !ok {
		return "", false
	}
	if p := nameProblem(s); p != "" {
		d.errorf(t.key(k), "%s %q %s", kind, s, p)
		return s, false
	}
	if d.dup(kind, s, t.key(k)) {
		return s, false
	}
	return s, true
}
