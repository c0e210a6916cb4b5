// Package handoff writes the team handoff (handoff.md) and builds the first
// prompt of a fresh session: the protocol preamble, the task, and whatever
// the session resumes from (the handoff and the task's last checkpoint).
package handoff

import (
	"fmt"
	"strings"

	"github.com/wardenhq/warden/protocol"
)

// Prompt is what goes into a session's first prompt.
type Prompt struct {
	Preamble   string               // protocol.Preamble for the task
	Task       string               // the task's prompt
	Checkpoint *protocol.Checkpoint // the task's last checkpoint, when resuming
	Handoff    string               // the team handoff, after a team checkpoint
	Feedback   string               // e.g. a failed verify's output
}

// Render joins the parts of the first prompt. A resumed task's checkpoint is
// written as prose, not as a CHECKPOINT block: the agent must answer the
// next request with a block of its own, never with a copy of warden's text.
func (p Prompt) Render() string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(p.Preamble))
	b.WriteString("\n\n")
	if p.Handoff != "" {
		b.WriteString("The team was checkpointed and restarted in fresh sessions. The team handoff:\n\n")
		b.WriteString(strings.TrimSpace(p.Handoff))
		b.WriteString("\n\n")
	}
	b.WriteString(strings.TrimSpace(p.Task))
	b.WriteString("\n")
	if cp := p.Checkpoint; cp != nil {
		b.WriteString("\n")
		b.WriteString(ResumeText(cp))
	}
	if p.Feedback != "" {
		b.WriteString("\n")
		b.WriteString(strings.TrimSpace(p.Feedback))
		b.WriteString("\n")
	}
	return b.String()
}

// ResumeText tells a fresh session where the last one stopped on a task:
// resume instructions first, then what is done (not to be redone) and what
// remains.
func ResumeText(cp *protocol.Checkpoint) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are resuming task %s (attempt %d). The previous session reached %d%% (%s) at %s.\n",
		line(cp.TaskID), cp.Attempt+1, cp.ProgressPercent, line(cp.Status), cp.UpdatedAt.UTC().Format("2006-01-02 15:04 UTC"))
	if cp.ResumeInstructions != "" {
		fmt.Fprintf(&b, "Resume instructions from the previous session: %s\n", line(cp.ResumeInstructions))
	}
	list := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		b.WriteString(title + "\n")
		for _, it := range items {
			b.WriteString("  * " + line(it) + "\n")
		}
	}
	list("Already completed (do not redo):", cp.Completed)
	list("Still remaining:", cp.Remaining)
	if len(cp.FilesModified) > 0 {
		fmt.Fprintf(&b, "Files it modified: %s\n", line(strings.Join(cp.FilesModified, ", ")))
	}
	if g := cp.Git; g != nil && g.Branch != "" && g.Branch != "HEAD" {
		head := g.Commit
		if head == "" {
			head = g.Head
		}
		fmt.Fprintf(&b, "Its work is on git branch %s (last commit %s), checked out where you work.\n", line(g.Branch), line(short(head)))
	}
	list("Blockers it reported:", cp.Blockers)
	if cp.Notes != "" {
		fmt.Fprintf(&b, "Its notes: %s\n", line(cp.Notes))
	}
	return b.String()
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
