package handoff

import (
	"fmt"
	"strings"
)

// writeSpent writes what the run and each task spent, when anything was
// read: "## Spent", the run's line (with its budget) and one line a task.
func writeSpent(b *strings.Builder, d Data, x text) {
	var tasks []Task
	for _, t := range d.Tasks {
		if t.Spent != "" {
			tasks = append(tasks, t)
		}
	}
	if d.Spent == "" && len(tasks) == 0 {
		return
	}
	b.WriteString("\n## Spent\n\n")
	if d.Spent != "" {
		fmt.Fprintf(b, "- The run: %s\n", x.line(d.Spent))
	}
	for _, t := range tasks {
		fmt.Fprintf(b, "- %s: %s\n", x.line(t.ID), x.line(t.Spent))
	}
}
