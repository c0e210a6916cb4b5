// Package protocol is warden's text protocol with an agent: the preamble that
// opens every first prompt, the CHECKPOINT REQUEST line warden types, the
// CHECKPOINT block parser, and the Reader that turns raw pty output (plain
// lines or a TUI drawn with cursor moves) into exactly one record per answer.
package protocol

import (
	"fmt"
	"strings"
)

// CompleteMarker is the line a team lead agent prints, alone on a line, when
// it has finished a team checkpoint itself. warden never types it.
const CompleteMarker = "CHECKPOINT COMPLETE"

// RequestPrefix starts the line warden types to ask for a checkpoint.
const RequestPrefix = "CHECKPOINT REQUEST:"

// The placeholders of the block template the first prompt shows: a
// block holding one is that template drawn again (IsTemplate), no answer.
const (
	TemplateMark   = "<concrete deliverable>"
	TemplateStatus = "<implementing | testing | awaiting-verification | blocked | complete>"
)

// IsTemplate reports whether text holds the first prompt's block template
// (one of its placeholders): Codex shows a long prompt cut short, the
// template's Status line kept, its Completed item not.
func IsTemplate(text string) bool {
	return strings.Contains(text, TemplateMark) || strings.Contains(text, "Status: <implementing |")
}

// Task is what the preamble needs to know about the agent's work.
type Task struct {
	ID    string // task id, e.g. "T060"; empty for an agent without a task
	Title string // one-line title, optional
	Lead  bool   // a team lead may end a team checkpoint with CompleteMarker
}

// Reminder follows the task id on every request line: the format in one
// line, for an agent whose context was compacted and lost the preamble. It
// never holds "CHECKPOINT:" or a field with its colon, so neither it nor
// its echo (wrapped anywhere by a TUI) can ever parse as a block.
const Reminder = "(answer with your checkpoint block: lines CHECKPOINT, Status, Completed, Remaining, " +
	"Files Modified, Estimated Progress)"

// Request returns the line warden types to ask for a checkpoint of taskID.
func Request(taskID string) string {
	return RequestPrefix + " " + taskID + " " + Reminder
}

// RequestTask returns the task id of a request line.
func RequestTask(line string) (string, bool) {
	after, ok := strings.CutPrefix(strings.TrimSpace(line), RequestPrefix)
	if !ok {
		return "", false
	}
	f := strings.Fields(after)
	if len(f) == 0 {
		return "", false
	}
	return f[0], true
}

// SystemPrompt is the protocol for a CLI's system prompt (or the place it
// keeps instructions across a compaction of its context): the preamble
// without a task, which the first prompt then names.
func SystemPrompt(lead bool) string {
	return Preamble(Task{Lead: lead})
}

// Preamble returns the short text that goes first into an agent's first
// prompt. Its template block uses placeholders ("<...>", "[N]%") that can
// never parse as a valid block, so its echo can never yield a record, and it
// never holds CompleteMarker alone on a line.
func Preamble(task Task) string {
	id := task.ID
	if id == "" {
		id = "<task id>"
	}
	var b strings.Builder
	b.WriteString("You are running under warden, a supervisor for coding agents. ")
	b.WriteString("warden records your progress so that your work can be resumed by a fresh session ")
	b.WriteString("if this one stops or its context fills up.\n")
	if task.ID != "" {
		fmt.Fprintf(&b, "Your task: %s", task.ID)
		if task.Title != "" {
			fmt.Fprintf(&b, " - %s", task.Title)
		}
		b.WriteString(".\n")
	}
	b.WriteString("\nWhenever you receive a line \"" + RequestPrefix + " <task id>\", finish the step you are on, ")
	b.WriteString("then reply with a checkpoint block in exactly this form, each line at the start of a line, ")
	b.WriteString("every value filled in:\n\n")
	fmt.Fprintf(&b, "CHECKPOINT: %s\n", id)
	b.WriteString("Status: " + TemplateStatus + "\n")
	b.WriteString("Completed:\n- " + TemplateMark + "\n")
	b.WriteString("Remaining:\n- <specific next step>\n")
	b.WriteString("Files Modified: <comma-separated paths, or none>\n")
	b.WriteString("Estimated Progress: [N]%\n\n")
	b.WriteString("Status is one of the five words shown; Estimated Progress is a whole number from 0 to 100 ")
	b.WriteString("followed by %. You may add these optional lines: \"Blockers:\" (a list), \"Notes:\" ")
	b.WriteString("(one paragraph), \"Resume:\" (instructions for whoever resumes this task), \"Phase:\", ")
	b.WriteString("\"Current Step:\", \"Subtasks:\" (done/total, such as 3/8, or a list of [x] and [ ] items), ")
	b.WriteString("\"Files Created:\" and \"Errors:\" (a list); any other \"Key: value\" line is kept as well. ")
	b.WriteString("You may also print a checkpoint block unasked whenever you finish a milestone.\n")
	if task.Lead {
		b.WriteString("As the team lead, when you have finished a team checkpoint yourself, print the line ")
		b.WriteString("\"" + CompleteMarker + "\" (without the quotes) on a line of its own.\n")
	}
	return b.String()
}
