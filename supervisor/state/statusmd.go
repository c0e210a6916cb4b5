package state

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/queue"
)

// statusMarkdown renders STATUS.md: the team's progress; Agent | Task |
// Progress | Last Update | Status; the tasks with their last completed item;
// the blocked ones. Every cell is escaped (a title or an agent's text can
// never forge a row), ages are relative to the snapshot's time.
func statusMarkdown(s Snapshot) string {
	var b strings.Builder
	now := s.UpdatedAt
	fmt.Fprintf(&b, "# %s\n\nUpdated %s. Team progress: %d%%.\n\n", cell(s.Team), s.UpdatedAt.UTC().Format(time.RFC3339),
		queue.TeamProgress(s.Tasks))
	b.WriteString("| Agent | Task | Progress | Last Update | Status |\n|---|---|---|---|---|\n")
	for _, a := range s.Agents {
		progress, update := "-", "-"
		for _, t := range s.Tasks {
			if t.ID == a.Task && t.ID != "" {
				progress = fmt.Sprintf("%d%%", t.Progress)
				update = t.Summary
			}
		}
		if !a.LastCheckpoint.IsZero() {
			update = stamp(a.LastCheckpoint, now)
		}
		status := string(a.State)
		if a.Dialog != "" {
			status += ": " + firstLine(a.Dialog)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(a.Name), cell(a.Task), progress, cell(update), cell(status))
	}
	if len(s.Tasks) > 0 {
		b.WriteString("\n| Task | Title | Status | Owner | Progress | Last done | Blocked by |\n|---|---|---|---|---|---|---|\n")
		for _, t := range s.Tasks {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %d%% | %s | %s |\n", cell(t.ID), cell(t.Title), cell(string(t.State)), cell(t.Owner),
				t.Progress, cell(t.LastDone), cell(strings.Join(t.BlockedBy, ", ")))
		}
	}
	var blocked []string
	for _, t := range s.Tasks {
		if t.Summary == "blocked" && t.State != queue.Complete && t.State != queue.Failed {
			blocked = append(blocked, fmt.Sprintf("- %s: %s", cell(t.ID), cell(strings.Join(t.Blockers, "; "))))
		}
	}
	if len(blocked) > 0 {
		b.WriteString("\n## Blocked\n\n" + strings.Join(blocked, "\n") + "\n")
	}
	return b.String()
}

// RenderDashboard writes the human dashboard of a snapshot; ages are
// relative to now.
func RenderDashboard(w io.Writer, s Snapshot, now time.Time) {
	active := 0
	for _, a := range s.Agents {
		if a.State == Running {
			active++
		}
	}
	c := queue.Counts(s.Tasks)
	st := "stopped"
	if s.Running {
		st = "running"
	}
	fmt.Fprintf(w, "== %s (%s) progress %d%%, agents active %d/%d, tasks done %d/%d, available %d, blocked %d, pending verification %d\n",
		clean(s.Team), st, queue.TeamProgress(s.Tasks), active, len(s.Agents), c[queue.Complete], len(s.Tasks),
		c[queue.Pending], c[queue.Blocked], c[queue.Verifying])
	for _, a := range s.Agents {
		reason := a.Reason
		if a.Dialog != "" {
			reason = "waits on: " + firstLine(a.Dialog)
		}
		last := ""
		if !a.LastCheckpoint.IsZero() {
			last = "last checkpoint " + ago(a.LastCheckpoint, now)
		}
		fmt.Fprintf(w, "   agent %-12s %-9s task %-8s attempt %d %s %s\n", clean(a.Name), clean(string(a.State)), dash(clean(a.Task)),
			a.Attempt, clean(last), clean(reason))
	}
	for _, t := range s.Tasks {
		line := t.Summary
		if t.LastDone != "" {
			line += ", last done: " + t.LastDone
		}
		if t.Summary == "blocked" {
			line += " — blocked on: " + dash(strings.Join(t.Blockers, "; "))
		}
		if t.Branch != "" {
			line += fmt.Sprintf(" [%s, %d ahead of %s]", t.Branch, t.Ahead, t.Base)
		}
		fmt.Fprintf(w, "   task  %-12s %-9s %3d%%  %s %s\n", clean(t.ID), clean(string(t.State)), t.Progress, dash(clean(t.Owner)), clean(line))
	}
}

// stamp is a time with its age: "2026-11-23T02:00:00Z (2 min ago)".
func stamp(t, now time.Time) string {
	return t.UTC().Format(time.RFC3339) + " (" + ago(t, now) + ")"
}

// ago says how long before now t was, as a person would.
func ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02d ago", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// clean removes control characters (C0 and C1: escape sequences, bells,
// CSI as U+009B) from text shown on a terminal or written to Markdown.
func clean(s string) string { return protocol.Plain(s) }

// cell is text for one Markdown table cell: one line, pipes escaped.
func cell(s string) string {
	return strings.ReplaceAll(clean(dash(s)), "|", `\|`)
}
