package config

import (
	"errors"
	"io"
	"os"
)

// task validates one [[task]] table on its own; references to other tasks and
// to agents are checked by crossCheck.
func (d *decoder) task(t table) Task {
	t.unknown("id", "title", "prompt", "prompt_file", "blocked_by", "agent", "verify",
		"max_attempts", "max_time", "estimate", "max_cost", "max_tokens", "review_by")
	task := Task{Pos: d.ix.at(t.path)}
	task.ID, _ = d.name(t, "id", "task id")
	if title, ok := t.str("title"); ok && d.plainText(t.key("title"), "task title", title) {
		task.Title = title
	}

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
	task.MaxAttempts = t.integer("max_attempts", 0, 1, 1<<31-1, "1 or more") // 0: no limit
	task.MaxTime, _ = t.duration("max_time", 0)                              // 0: no limit
	task.Estimate, _ = t.duration("estimate", 0)                             // 0: none given
	task.Budget = d.budget(t)                                                // zero: no limit
	return task
}

// maxPromptFile bounds the size of a prompt_file.
const maxPromptFile = 1 << 20

// promptFile reads prompt_file, relative to the team file's directory. It must
// be a regular file (a FIFO would block, a device never end) of at most 1 MiB.
func (d *decoder) promptFile(t table) (path, prompt string) {
	name, ok := t.nonEmpty("prompt_file")
	if !ok {
		return "", ""
	}
	path = d.resolve(name)
	data, err := readPromptFile(path)
	if err != nil {
		d.errorf(t.key("prompt_file"), "cannot read prompt_file %q: %v", name, err)
		return path, ""
	}
	if len(data) == 0 {
		d.errorf(t.key("prompt_file"), "prompt_file %q is empty", name)
	}
	return path, string(data)
}

// readPromptFile reads a regular file of at most maxPromptFile bytes; its
// errors leave out the path, which the caller reports as written.
func readPromptFile(path string) ([]byte, error) {
	unwrap := func(err error) error {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, unwrap(err)
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, unwrap(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPromptFile+1))
	if err != nil {
		return nil, unwrap(err)
	}
	if len(data) > maxPromptFile {
		return nil, errors.New("larger than 1 MiB")
	}
	return data, nil
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
