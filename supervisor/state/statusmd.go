package state

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/wardenhq/warden/internal/mdtext"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/queue"
)

// statusMarkdown renders STATUS.md: the team's progress and task counts;
// Agent | Task | Progress | Last Update | Status; the tasks with their
// time worked, the seeds' phase, step, subtasks and errors, and their last
// completed item; the blocked ones (task, agent, blockers). Every cell is
// escaped (a title or an agent's text can never forge a row, nor become
// HTML, a link or a code span), ages are relative to the snapshot's time.
func statusMarkdown(s Snapshot) string {
	var b strings.Builder
	now := s.UpdatedAt
	fmt.Fprintf(&b, "# %s\n\nUpdated %s. Team progress: %d%%. Tasks: %s.\n\n", cell(s.Team), s.UpdatedAt.UTC().Format(time.RFC3339),
		queue.TeamProgress(s.Tasks), taskCounts(s.Tasks))
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
			status += ": " + protocol.FirstLine(a.Dialog)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(a.Name), cell(a.Task), progress, cell(update), cell(status))
	}
	if len(s.Tasks) > 0 {
		b.WriteString("\n| Task | Title | Status | Owner | Progress | Worked | Phase | Current step | Subtasks | Errors | Last done | Blocked by |\n" +
			"|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, t := range s.Tasks {
			errs := "-"
			if t.Errors > 0 {
				errs = fmt.Sprint(t.Errors)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %d%% | %s | %s | %s | %s | %s | %s | %s |\n", cell(t.ID), cell(t.Title), cell(t.Label()), cell(t.Owner),
				t.Progress, cell(t.Worked()), cell(t.Phase), cell(t.CurrentStep), cell(t.Subtasks()), errs, cell(t.LastDone), cell(strings.Join(t.BlockedBy, ", ")))
		}
	}
	if blocked := blockedLines(s.Tasks, cell); len(blocked) > 0 {
		b.WriteString("\n## Blocked\n\n" + strings.Join(blocked, "\n") + "\n")
	}
	if lines := reviewLines(s.Tasks, cell); len(lines) > 0 {
		b.WriteString("\n## Review\n\n" + strings.Join(lines, "\n") + "\n")
	}
	if len(s.Overlaps) > 0 {
		b.WriteString("\n## Overlapping work\n\n")
		for _, o := range s.Overlaps {
			b.WriteString("- " + cell(o.Line()) + "\n")
		}
	}
	b.WriteString(landSection(s.Land, cell))
	b.WriteString(spendSection(s))
	return b.String()
}

// taskCounts is the tasks by what a person reads (queue.Label): "1 of 3
// done, 1 running, 1 blocked, 1 waiting (blocked_by)…"; a blocked task is
// one its agent says is blocked, a waiting one waits for its blocked_by.
func taskCounts(ts []queue.Status) string {
	c := queue.Tally(ts)
	out := fmt.Sprintf("%d of %d done", c[string(queue.Complete)], len(ts))
	for _, k := range []string{string(queue.Running), string(queue.Verifying), string(queue.Reviewing), string(queue.Pending), queue.LabelBlocked,
		queue.LabelWaiting, string(queue.Failed)} {
		if c[k] > 0 {
			out += fmt.Sprintf(", %d %s", c[k], k)
		}
	}
	return out
}

// blockedLines lists the blocked tasks (queue.Status.IsBlocked), one
// "- T2 (w1): blocker; blocker" a line, each text made safe by esc.
func blockedLines(ts []queue.Status, esc func(string) string) []string {
	var out []string
	for _, t := range ts {
		if t.IsBlocked() {
			out = append(out, fmt.Sprintf("- %s (%s): %s", esc(t.ID), esc(t.Owner), esc(strings.Join(t.BlockedOn(), "; "))))
		}
	}
	return out
}

// RenderDashboard writes the human dashboard of a snapshot; ages are
// relative to now. Its header counts blocked tasks (their agent says so)
// as blocked, and those that wait for their blocked_by as waiting; the
// blocked ones are listed under it, with their agent and blockers.
func RenderDashboard(w io.Writer, s Snapshot, now time.Time) {
	active := 0
	for _, a := range s.Agents {
		if a.State == Running {
			active++
		}
	}
	c := queue.Tally(s.Tasks)
	st := "stopped"
	switch {
	case s.Running:
		st = "running"
	case s.Ended == EndedFinished:
		st = EndedFinished // stopped with tasks open stays "stopped"
	case s.SupervisorDied:
		st = "not running: warden died"
	}
	review := ""
	if n := c[string(queue.Reviewing)]; n > 0 {
		review = fmt.Sprintf(", in review %d", n)
	}
	fmt.Fprintf(w, "== %s (%s) progress %d%%, agents active %d/%d, tasks done %d/%d, available %d, blocked %d, waiting %d, pending verification %d%s\n",
		clean(s.Team), st, queue.TeamProgress(s.Tasks), active, len(s.Agents), c[string(queue.Complete)], len(s.Tasks),
		c[string(queue.Pending)], c[queue.LabelBlocked], c[queue.LabelWaiting], c[string(queue.Verifying)], review)
	if s.SupervisorDied {
		fmt.Fprintf(w, "   warden is not running: its supervisor (pid %d) died without stopping the team, last update %s; "+
			"`warden run` with the team file carries it on\n", s.Pid, ago(s.UpdatedAt, now))
	}
	if line := teamSpend(s); line != "" {
		fmt.Fprintf(w, "   %s\n", clean(line))
	}
	if line := carriedLine(s); line != "" {
		fmt.Fprintf(w, "   %s\n", clean(line))
	}
	for _, a := range s.Agents {
		reason := a.Reason
		if a.Dialog != "" {
			reason = "waits on: " + protocol.FirstLine(a.Dialog)
		}
		if a.OverlapHeld != "" {
			reason = strings.TrimSpace("held until " + a.OverlapHeld + " ends (on_overlap = serialize) " + reason)
		}
		if a.BudgetHeld {
			reason = strings.TrimSpace("parked at the team's budget until `warden resume` " + reason)
		}
		last := ""
		if !a.LastCheckpoint.IsZero() {
			last = "last checkpoint " + ago(a.LastCheckpoint, now)
		}
		if a.Usage != nil {
			last = strings.TrimSpace(last + " spent " + Spend(a.Usage))
		}
		fmt.Fprintf(w, "   agent %-12s %-9s task %-8s attempt %d %s %s\n", clean(a.Name), clean(string(a.State)), dash(clean(a.Task)),
			a.Attempt, clean(last), clean(reason))
	}
	for _, t := range s.Tasks {
		fmt.Fprintf(w, "   task  %-12s %-9s %3d%%  %s %s\n", clean(t.ID), clean(t.Label()), t.Progress, dash(clean(t.Owner)), clean(taskLine(t, s.Tasks)))
	}
	if blocked := blockedLines(s.Tasks, func(s string) string { return clean(dash(s)) }); len(blocked) > 0 {
		fmt.Fprintf(w, "   Blocked:\n")
		for _, l := range blocked {
			fmt.Fprintf(w, "   %s\n", l)
		}
	}
	for _, l := range reviewLines(s.Tasks, clean) {
		fmt.Fprintf(w, "   review %s\n", strings.TrimPrefix(l, "- "))
	}
	for _, o := range s.Overlaps {
		fmt.Fprintf(w, "   overlap: %s\n", clean(o.Line()))
	}
	if s.Land != nil {
		fmt.Fprintf(w, "   land: %s\n", clean(s.Land.Line()))
	}
}

// taskLine is what the dashboard says of a task after its state: its last
// status, the seeds' phase, step, subtasks and errors, its last completed
// item, what it waits for, its time worked and its branch.
func taskLine(t queue.Status, all []queue.Status) string {
	parts := []string{}
	add := func(format string, a ...any) { parts = append(parts, fmt.Sprintf(format, a...)) }
	if t.Summary != "" && t.Summary != t.Label() {
		add("%s", t.Summary)
	}
	if t.Phase != "" {
		add("phase: %s", t.Phase)
	}
	if t.CurrentStep != "" {
		add("step: %s", t.CurrentStep)
	}
	if st := t.Subtasks(); st != "" {
		add("subtasks %s", st)
	}
	switch {
	case t.Errors == 1:
		add("1 error")
	case t.Errors > 1:
		add("%d errors", t.Errors)
	}
	if t.LastDone != "" {
		add("last done: %s", t.LastDone)
	}
	if t.Label() == queue.LabelWaiting {
		add("waits for: %s", dash(strings.Join(queue.WaitsFor(t, all), ", ")))
	}
	if wk := t.Worked(); wk != "" {
		add("worked %s", wk)
	}
	if t.Usage != nil {
		add("spent %s", Spend(t.Usage))
	}
	line := strings.Join(parts, ", ")
	if t.IsBlocked() {
		if line != "" {
			line += " — "
		}
		line += "blocked on: " + dash(strings.Join(t.BlockedOn(), "; "))
	}
	if t.Branch != "" {
		line += fmt.Sprintf(" [%s, %d ahead of %s]", t.Branch, t.Ahead, t.Base)
	}
	return line
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

// clean removes control characters (C0 and C1: escape sequences, bells,
// CSI as U+009B) from text shown on a terminal or written to Markdown.
func clean(s string) string { return protocol.Plain(s) }

// cell is text for one Markdown table cell (or a heading, a list item):
// one line, what Markdown or HTML would act on escaped (mdtext: no
// element, link, code span or cell of its own), "-" for none.
func cell(s string) string { return mdtext.Cell(s) }

// reviewLines lists the tasks with review rounds (review_by): in review,
// back with their author with findings, or complete with findings left
// open after the last round; one line each, every text made safe by esc.
func reviewLines(ts []queue.Status, esc func(string) string) []string {
	var out []string
	for _, t := range ts {
		if t.Reviewer == "" || (t.ReviewRound == 0 && !t.Unreviewed) {
			continue
		}
		line := fmt.Sprintf("- %s: round %d by %s", esc(t.ID), t.ReviewRound, esc(t.Reviewer))
		switch {
		case t.Unreviewed:
			line = fmt.Sprintf("- %s: complete unreviewed (its reviewer %s ended)", esc(t.ID), esc(t.Reviewer))
		case t.State == queue.Reviewing:
			line += ", in review"
		case len(t.Findings) > 0 && t.State == queue.Complete:
			line += ", complete with open findings: " + esc(strings.Join(t.Findings, "; "))
		case len(t.Findings) > 0:
			line += ", findings back with " + esc(t.Owner) + ": " + esc(strings.Join(t.Findings, "; "))
		case t.State == queue.Complete:
			line += ", approved"
		}
		out = append(out, line)
	}
	return out
}
