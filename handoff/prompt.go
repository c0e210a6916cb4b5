// Package handoff writes the team handoff (handoff.md) and builds the first
// prompt of a fresh session: the protocol preamble, the task, and whatever
// the session resumes from (the handoff and the task's last checkpoint).
package handoff

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wardenhq/warden/protocol"
)

// Prompt is what goes into a session's first prompt.
type Prompt struct {
	Preamble   string               // protocol.Preamble for the task
	Task       string               // the task's prompt
	Checkpoint *protocol.Checkpoint // the task's last checkpoint, when resuming
	// Attempt is the session's attempt number (its task's sessions so far,
	// this one included), as its records and agent_started say it.
	Attempt  int
	Handoff  string // the team handoff, after a team checkpoint
	Feedback string // e.g. a failed verify's output
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
		b.WriteString(ResumeText(cp, p.Attempt))
	}
	if p.Feedback != "" {
		b.WriteString("\n")
		b.WriteString(strings.TrimSpace(p.Feedback))
		b.WriteString("\n")
	}
	return b.String()
}

// ResumeText tells a fresh session where the last one stopped on a task:
// resume instructions first, then where it was (the seeds' phase, current
// step and subtasks, done and not), what is done (not to be redone), what
// remains, the files it modified and created, its branch, the errors it
// met with where, its blockers, notes and other lines. Every value is the
// agent's text, made plain. attempt is the resuming session's attempt
// number — the count of its task's sessions, never the record's own
// attempt plus one: a record chosen with --from is older than the last
// session —; 0 leaves it unsaid.
//
// A record the agent said cannot be resumed from (Resumable: no) is never
// written as one to resume: the text says so, and that the task starts
// from its prompt, as the session's own first prompt does.
func ResumeText(cp *protocol.Checkpoint, attempt int) string { return resumeText(cp, attempt, text{}) }

// resumeText is ResumeText, its texts written by x (handoff.md escapes
// them for Markdown).
func resumeText(cp *protocol.Checkpoint, attempt int, x text) string {
	var b strings.Builder
	if cp.SaysNotResumable() {
		fmt.Fprintf(&b, "Task %s is not resumed: its last checkpoint %s (status %s, %d%%, at %s) says it cannot be resumed "+
			"from (Resumable: no). Its next session starts the task from its prompt, and checks what is already in the "+
			"working directory before it redoes anything.\n", x.line(cp.TaskID), x.line(cp.CheckpointID), x.line(cp.Status),
			cp.ProgressPercent, cp.UpdatedAt.UTC().Format("2006-01-02 15:04 UTC"))
		if len(cp.FilesModified) > 0 {
			fmt.Fprintf(&b, "Files that session modified: %s\n", x.line(strings.Join(cp.FilesModified, ", ")))
		}
		if cp.Notes != "" {
			fmt.Fprintf(&b, "Its notes: %s\n", x.line(cp.Notes))
		}
		return b.String()
	}
	which := ""
	if attempt > 0 {
		which = fmt.Sprintf(" (attempt %d)", attempt)
	}
	fmt.Fprintf(&b, "You are resuming task %s%s. The previous session reached %d%% (%s) at %s.\n",
		x.line(cp.TaskID), which, cp.ProgressPercent, x.line(cp.Status), cp.UpdatedAt.UTC().Format("2006-01-02 15:04 UTC"))
	if cp.ResumeInstructions != "" {
		fmt.Fprintf(&b, "Resume instructions from the previous session: %s\n", x.line(cp.ResumeInstructions))
	}
	list := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		b.WriteString(title + "\n")
		for _, it := range items {
			b.WriteString("  * " + x.line(it) + "\n")
		}
	}
	switch {
	case cp.Phase != "" && cp.CurrentStep != "":
		fmt.Fprintf(&b, "It was in phase %s, at the step: %s\n", x.line(cp.Phase), x.line(cp.CurrentStep))
	case cp.Phase != "":
		fmt.Fprintf(&b, "It was in phase %s.\n", x.line(cp.Phase))
	case cp.CurrentStep != "":
		fmt.Fprintf(&b, "It was at the step: %s\n", x.line(cp.CurrentStep))
	}
	if st := cp.Subtasks; st != nil && (st.Total > 0 || len(st.Items) > 0) {
		fmt.Fprintf(&b, "It had done %d of its %d subtasks", st.Done, st.Total)
		if len(st.Items) == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteString(" (do not redo the done ones):\n")
			for _, it := range st.Items {
				mark := "[to do]"
				if it.Done {
					mark = "[done]"
				}
				b.WriteString("  * " + mark + " " + x.line(it.Text) + "\n")
			}
		}
	}
	list("Already completed (do not redo):", cp.Completed)
	list("Still remaining:", cp.Remaining)
	if len(cp.FilesModified) > 0 {
		fmt.Fprintf(&b, "Files it modified: %s\n", x.line(strings.Join(cp.FilesModified, ", ")))
	}
	if len(cp.FilesCreated) > 0 {
		fmt.Fprintf(&b, "Files it created: %s\n", x.line(strings.Join(cp.FilesCreated, ", ")))
	}
	if g := cp.Git; g != nil && g.Branch != "" && g.Branch != "HEAD" {
		head := g.Commit
		if head == "" {
			head = g.Head
		}
		fmt.Fprintf(&b, "Its work is on git branch %s (last commit %s), checked out where you work.\n", x.line(g.Branch), x.line(short(head)))
	}
	if len(cp.Errors) > 0 {
		errs := make([]string, 0, len(cp.Errors))
		for _, e := range cp.Errors {
			if e.Where != "" {
				errs = append(errs, e.Message+" (at "+e.Where+")")
			} else {
				errs = append(errs, e.Message)
			}
		}
		list("Errors it reported:", errs)
	}
	list("Blockers it reported:", cp.Blockers)
	if cp.Notes != "" {
		fmt.Fprintf(&b, "Its notes: %s\n", x.line(cp.Notes))
	}
	if len(cp.Extra) > 0 {
		keys := make([]string, 0, len(cp.Extra))
		for k := range cp.Extra {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		extra := make([]string, 0, len(keys))
		for _, k := range keys {
			extra = append(extra, k+": "+cp.Extra[k])
		}
		list("Other lines of its checkpoint:", extra)
	}
	return b.String()
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
