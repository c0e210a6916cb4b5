package handoff

import (
	"fmt"
	"strings"
)

// writeReview writes the Review section, what a person acts on in the
// morning: per task its status, verify result, branch and last commit
// (worktree mode) and attempts; then which completed tasks wait for a
// review — and, on a branch of their own, a merge into their base.
func writeReview(b *strings.Builder, tasks []Task, x text) {
	b.WriteString("\n## Review\n\n| Task | Status | Verify | Branch | Last commit | Attempts |\n|---|---|---|---|---|---|\n")
	for _, t := range tasks {
		branch := t.Branch
		if branch != "" && t.Base != "" {
			branch += fmt.Sprintf(" (%d ahead of %s)", t.Ahead, t.Base)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %d |\n", x.cell(t.ID), x.cell(t.Status), x.cell(t.Verify), x.cell(branch),
			x.cell(short(t.Commit)), t.Attempts)
	}
	var merge, review, merged []string
	for _, t := range tasks {
		switch {
		case t.Status != "complete":
		case t.Branch != "" && t.Ahead > 0:
			merge = append(merge, fmt.Sprintf("%s (%s into %s)", x.line(t.ID), x.line(t.Branch), x.line(dash(t.Base))))
		case t.Branch != "":
			merged = append(merged, fmt.Sprintf("%s (%s)", x.line(t.ID), x.line(dash(t.Base))))
		default:
			review = append(review, x.line(t.ID))
		}
	}
	b.WriteString("\n")
	if len(merge) > 0 {
		fmt.Fprintf(b, "Complete, waiting for your review and merge: %s.\n", strings.Join(merge, ", "))
	}
	if len(review) > 0 {
		fmt.Fprintf(b, "Complete, waiting for your review (the work is in the agent's directory): %s.\n", strings.Join(review, ", "))
	}
	if len(merged) > 0 {
		fmt.Fprintf(b, "Complete and already in their base branch: %s.\n", strings.Join(merged, ", "))
	}
	if len(merge)+len(review)+len(merged) == 0 {
		b.WriteString("No task is complete yet: nothing waits for a review.\n")
	}
}
