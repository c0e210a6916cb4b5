package config

import (
	"errors"
	"os"
)

// task validates one [[task]] table on its own; references to other tasks and
// to agents are checked by crossCheck.
func (d *decoder) task(t table) Task {
	t.unknown("id", "title", "prompt", "prompt_file", "blocked_by", "agent", "verify")
	task := Task{Pos: d.ix.at(t.path)}
	task.ID, _ = d.name(t, "id", "task id")
	task.Title, _ = t.str("title")

	_, hasPrompt := t.vals["prompt"]
	_, hasFile := t.vals["prompt_file"]
	switch {
	case hasPrompt && hasFile:
		d.errorf(t.key("prompt_file"), "task has both prompt and prompt_file; keep one")
	case !hasPrompt && !hasFile:
		d.errorf(t.path, "missing key \"prompt\" or \"prompt_file\"%s", t.where)
	case hasPrompt:
		task.Prompt, _ = t.nonEmpty("prompt")
	default:
		task.PromptFile, task.Prompt = d.promptFile(t)
	}

	if list, _, ok := t.strings("blocked_by"); ok {
		task.BlockedBy = list
	}
	if agent, ok := t.str("agent"); ok {
		task.Agent = agent
		if agent == "" {
			d.errorf(t.key("agent"), "agent must not be empty")
		}
	}
	if argv, present, ok := t.argv("verify"); present && ok {
		task.Verify = argv
	}
	return task
}

// promptFile reads prompt_file, relative to the team file's directory.
func (d *decoder) promptFile(t table) (path, prompt string) {
	name, ok := t.nonEmpty("prompt_file")
	if !ok {
		return "", ""
	}
	path = d.resolve(name)
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		d.errorf(t.key("prompt_file"), "cannot read prompt_file %q: %v", name, err)
		return path, ""
	}
	if len(data) == 0 {
		d.errorf(t.key("prompt_file"), "prompt_file %q is empty", name)
	}
	return path, string(data)
}

// crossCheck validates what tasks say about other tasks and agents: every
// blocked_by entry names a task (once), blocked_by has no cycle, and every
// task's agent is an [[agent]].
func (d *decoder) crossCheck(team *Team, tables []table) {
	agents := make(map[string]bool, len(team.Agents))
	for _, a := range team.Agents {
		agents[a.Name] = true
	}
	ids := make(map[string]int, len(team.Tasks))
	for i, t := range team.Tasks {
		if _, dup := ids[t.ID]; !dup && t.ID != "" {
			ids[t.ID] = i
		}
	}
	for i, task := range team.Tasks {
		t := tables[i]
		if task.Agent != "" && !agents[task.Agent] {
			d.errorf(t.key("agent"), "task names unknown agent %q", task.Agent)
		}
		listed := make(map[string]bool, len(task.BlockedBy))
		for j, dep := range task.BlockedBy {
			at := pathIndex(t.key("blocked_by"), j)
			switch {
			case listed[dep]:
				d.errorf(at, "blocked_by lists %q twice", dep)
			case dep == "":
				d.errorf(at, "blocked_by[%d] must not be empty", j)
			default:
				if _, ok := ids[dep]; !ok {
					d.errorf(at, "blocked_by names unknown task %q", dep)
				}
			}
			listed[dep] = true
		}
	}
	for _, cycle := range findCycles(team.Tasks, ids) {
		first := cycle[0]
		d.errorf(tables[first].key("blocked_by"), "blocked_by cycle: %s", cycleString(team.Tasks, cycle))
	}
}
