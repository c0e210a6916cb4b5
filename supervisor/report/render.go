package report

import (
	"fmt"
	"io"
	"strings"
)

// Text is the report as `warden report` prints it: lines of at most Width
// columns, no escape sequence, nothing invisible.
func Text(r *Report) string { return render(r, false) }

// Markdown is the report as report.md holds it: the same lines, with what
// agents wrote escaped for Markdown.
func Markdown(r *Report) string { return render(r, true) }

// WriteText writes Text(r) to w.
func WriteText(w io.Writer, r *Report) error {
	_, err := io.WriteString(w, Text(r))
	return err
}

func render(r *Report, md bool) string {
	p := &page{md: md}
	c := clock{day: r.Run.Started.Local()}
	p.line(2, "# warden report: %s", p.esc(r.Team))
	p.gap()
	runSection(p, c, r)
	tasksSection(p, r)
	reviewSection(p, r)
	landSection(p, r)
	waitsSection(p, c, r)
	restartsSection(p, c, r)
	limitsSection(p, c, r)
	checkpointsSection(p, c, r)
	agentsSection(p, r)
	usageSection(p, r)
	if len(r.Notes) > 0 || r.Truncated {
		p.heading("Notes")
		for _, n := range r.Notes {
			p.line(2, "- %s", p.esc(n))
		}
		if r.Truncated {
			p.line(2, "- lists cut to fit the team_done event: report.md and `warden report` have them whole")
		}
	}
	return p.b.String()
}

func runSection(p *page, c clock, r *Report) {
	run := r.Run
	p.line(2, "Run %s: %s (%s).", p.esc(run.ID), run.Ended, p.esc(run.Why))
	started := "-"
	if !run.Started.IsZero() {
		started = run.Started.Local().Format("2006-01-02 15:04:05 MST")
	}
	switch {
	case run.EndedAt.IsZero():
		p.line(2, "Started %s, %s ago.", started, dur(run.DurationSeconds))
	default:
		p.line(2, "Started %s, ended %s: %s.", started, c.at(run.EndedAt), dur(run.DurationSeconds))
	}
	if run.ExitCode != nil {
		p.line(2, "warden exited with code %d.", *run.ExitCode)
	}
	for _, co := range run.CarriedOn {
		p.line(2, "Carried on at %s: %s.", c.at(co.At), p.esc(co.Reason))
	}
}

func tasksSection(p *page, r *Report) {
	s := r.Summary
	if s.Tasks == 0 {
		p.heading("Tasks: none")
		return
	}
	p.heading("Tasks: %d done, %d failed, %d open, of %d", s.Done, s.Failed, s.Open, s.Tasks)
	switch {
	case s.EstimateSeconds > 0:
		p.line(2, "Worked %s in all; the tasks with an estimate: %s.", dur(s.WorkedSeconds),
			worked(s.EstimatedWorkedSeconds, s.EstimateSeconds))
		p.gap()
	case s.WorkedSeconds > 0:
		p.line(2, "Worked %s in all (no task has an estimate).", dur(s.WorkedSeconds))
		p.gap()
	}
	for _, t := range r.Tasks {
		parts := []string{"worked " + worked(t.WorkedSeconds, t.EstimateSeconds), "attempt " + fmt.Sprint(t.Attempt)}
		if t.State != "complete" {
			parts = append(parts, fmt.Sprintf("%d%%", t.Progress))
		}
		parts = append(parts, counts(t))
		if len(t.OpenFindings) > 0 { // an agent's words: escaped
			parts = append(parts, "open findings: "+p.esc(strings.Join(t.OpenFindings, "; ")))
		}
		if t.Usage != nil {
			parts = append(parts, spend(*t.Usage))
		}
		title := ""
		if t.Title != "" {
			title = " \"" + p.esc(t.Title) + "\""
		}
		p.line(2, "- %s %s%s: %s", p.esc(t.ID), p.esc(t.Label), title, strings.Join(parts, "; "))
		if t.Reason != "" {
			p.line(4, "  why: %s", p.esc(t.Reason))
		}
		if len(t.Blockers) > 0 {
			p.line(4, "  blocked on: %s", p.esc(strings.Join(t.Blockers, "; ")))
		}
	}
}

func waitsSection(p *page, c clock, r *Report) {
	if len(r.Waits) == 0 {
		p.heading("Needed a person: nothing")
		return
	}
	p.heading("Needed a person: %s, %s waited in all", plural(len(r.Waits), "dialog"), dur(r.Summary.WaitedSeconds))
	for _, w := range r.Waits {
		on := ""
		if w.Task != "" {
			on = " on " + p.esc(w.Task)
		}
		p.line(2, "- %s %s%s waited %s on a %s dialog, %s: \"%s\"", c.at(w.Since), p.esc(w.Agent), on, dur(w.WaitedSeconds),
			p.esc(w.Kind), waitEnd(p, w), p.esc(w.Text))
	}
}

// waitEnd says how a wait ended.
func waitEnd(p *page, w Wait) string {
	switch w.Ended {
	case "resumed":
		return "then it went on"
	case "denied":
		return "denied by warden (dialog_timeout)"
	case "answered":
		out := "answered"
		if w.Choice == "deny" {
			out = "denied"
		}
		if w.By != "" {
			out += " by " + p.esc(w.By)
		}
		if w.Choice != "" && w.Choice != "deny" {
			out += ": " + p.esc(w.Choice)
		}
		return out
	case "replaced":
		return "then another dialog came"
	case "session_ended":
		return "until its session ended"
	case "waiting":
		return "still waiting"
	case "run_ended":
		return "still waiting when the run ended"
	}
	return p.esc(w.Ended)
}

func restartsSection(p *page, c clock, r *Report) {
	if len(r.Restarts) == 0 {
		p.heading("Restarts: none")
	} else {
		p.heading("Restarts: %d", len(r.Restarts))
	}
	for _, rs := range r.Restarts {
		on := ""
		if rs.Task != "" {
			on = " on " + p.esc(rs.Task)
		}
		backoff := ""
		if rs.Backoff != "" {
			backoff = " (backoff " + p.esc(rs.Backoff) + ")"
		}
		p.line(2, "- %s %s%s, attempt %d: %s%s", c.at(rs.At), p.esc(rs.Agent), on, rs.Attempt, p.esc(rs.Why), backoff)
	}
	if len(r.Failures) > 0 {
		p.gap()
		p.line(2, "Agents that failed (not restarted again):")
		for _, f := range r.Failures {
			on := ""
			if f.Task != "" {
				on = " on " + p.esc(f.Task)
			}
			p.line(2, "- %s %s%s: %s", c.at(f.At), p.esc(f.Agent), on, p.esc(f.Reason))
			for _, l := range f.LastLines {
				p.line(6, "    | %s", p.esc(l))
			}
		}
	}
}

func limitsSection(p *page, c clock, r *Report) {
	if len(r.Limits) == 0 {
		p.heading("Usage limits: none")
		return
	}
	p.heading("Usage limits: %d", len(r.Limits))
	for _, l := range r.Limits {
		who := p.esc(l.Agent)
		if l.Kind != "usage_limit_wait" {
			who = "account " + p.esc(l.Account) + " (" + p.esc(strings.Join(l.Agents, ", ")) + ")"
		}
		window := ""
		if !l.Until.IsZero() {
			window += ", paused until " + c.at(l.Until)
		}
		if l.Reset != "" {
			window += ", reset " + p.esc(l.Reset)
		}
		if !l.Resumed.IsZero() {
			window += ", resumed " + c.at(l.Resumed)
		}
		text := ""
		if l.Text != "" {
			text = ": \"" + p.esc(l.Text) + "\""
		}
		p.line(2, "- %s %s%s%s", c.at(l.At), who, window, text)
	}
}

func checkpointsSection(p *page, c clock, r *Report) {
	s := r.Summary
	p.heading("Checkpoints: %d received, %d rejected, %d timed out; %d kept in the history",
		s.Checkpoints, s.Rejected, s.Timeouts, s.CheckpointsKept)
	if len(r.TeamCheckpoints) == 0 {
		p.line(2, "Team checkpoints: none.")
		return
	}
	p.line(2, "Team checkpoints: %d.", len(r.TeamCheckpoints))
	for _, tc := range r.TeamCheckpoints {
		done := ""
		if tc.Complete {
			done = "; CHECKPOINT COMPLETE"
		}
		p.line(2, "- %s %s: %s%s", c.at(tc.At), p.esc(tc.Cause), p.esc(tc.Reason), done)
	}
}

func agentsSection(p *page, r *Report) {
	if len(r.Agents) == 0 {
		return
	}
	p.heading("Agents")
	for _, a := range r.Agents {
		parts := []string{plural(a.Sessions, "session"), plural(a.Restarts, "restart")}
		if a.BadExits > 0 {
			parts = append(parts, fmt.Sprintf("%d exited badly", a.BadExits))
		}
		if a.Stalls > 0 {
			parts = append(parts, plural(a.Stalls, "stall"))
		}
		if a.Waits > 0 {
			parts = append(parts, fmt.Sprintf("%s (%s)", plural(a.Waits, "dialog"), dur(a.WaitedSeconds)))
		}
		if a.Limits > 0 {
			parts = append(parts, plural(a.Limits, "limit"))
		}
		if a.Failed {
			parts = append(parts, "failed")
		}
		if a.Usage != nil {
			parts = append(parts, spend(*a.Usage))
		}
		p.line(2, "- %s (%s): %s", p.esc(a.Name), p.esc(a.State), strings.Join(parts, ", "))
	}
}

func usageSection(p *page, r *Report) {
	p.heading("Tokens and cost")
	u := r.Usage
	if !u.Recorded || u.Total == nil {
		p.line(0, "%s.", p.esc(u.Note))
		return
	}
	p.line(2, "In all, from %s: %s.", plural(u.Sessions, "session"), spend(*u.Total))
	p.line(2, "Per agent and per task: above, beside each.")
}
