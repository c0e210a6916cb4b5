package handoff

import (
	"fmt"
	"strings"

	"github.com/wardenhq/warden/internal/mdtext"
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
		fmt.Fprintf(b, "- The run: %s\n", x.runLine(d.Spent))
	}
	for _, t := range tasks {
		fmt.Fprintf(b, "- %s: %s\n", x.line(t.ID), x.line(t.Spent))
	}
}

// resumeSpan is the code span of warden's own words in the run's line
// ("… reached: agents parked until `warden resume`").
const resumeSpan = "`warden resume`"

// runLine is the run's spend line: what it quotes (a budget's reason, the
// models no row priced) escaped like any text from outside warden, its
// own `warden resume` kept a code span.
func (x text) runLine(s string) string {
	out := x.line(s)
	if x.md {
		out = strings.ReplaceAll(out, mdtext.Escape(resumeSpan), resumeSpan)
	}
	return out
}
