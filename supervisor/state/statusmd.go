package state

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/wardenhq/warden/supervisor/queue"
)

// statusMarkdown renders STATUS.md: Agent | Task | Progress | Last Update | Status.
func statusMarkdown(s Snapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nUpdated %s.\n\n", s.Team, s.UpdatedAt.UTC().Format(time.RFC3339))
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
			update = a.LastCheckpoint.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", a.Name, dash(a.Task), progress, update, a.State)
	}
	if len(s.Tasks) > 0 {
		b.WriteString("\n| Task | Title | Status | Owner | Progress | Blocked by |\n|---|---|---|---|---|---|\n")
		for _, t := range s.Tasks {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %d%% | %s |\n", t.ID, t.Title, t.State, dash(t.Owner),
				t.Progress, dash(strings.Join(t.BlockedBy, ", ")))
		}
	}
	return b.String()
}

// RenderDashboard writes the human dashboard of a snapshot.
func RenderDashboard(w io.Writer, s Snapshot) {
	active := 0
	for _, a := range s.Agents {
		if a.State == Running {
			active++
		}
	}
	c := queue.Counts(s.Tasks)
	state := "stopped"
	if s.Running {
		state = "running"
	}
	fmt.Fprintf(w, "== %s (%s) agents active %d/%d, tasks done %d/%d, available %d, blocked %d, pending verification %d\n",
		s.Team, state, active, len(s.Agents), c[queue.Complete], len(s.Tasks), c[queue.Pending], c[queue.Blocked], c[queue.Verifying])
	for _, a := range s.Agents {
		reason := a.Reason
		if a.Dialog != "" {
			reason = "waits on: " + strings.SplitN(a.Dialog, "\n", 2)[0]
		}
		fmt.Fprintf(w, "   agent %-12s %-9s task %-8s attempt %d %s\n", a.Name, a.State, dash(a.Task), a.Attempt, reason)
	}
	for _, t := range s.Tasks {
		fmt.Fprintf(w, "   task  %-12s %-9s %3d%%  %s %s\n", t.ID, t.State, t.Progress, dash(t.Owner), t.Summary)
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
