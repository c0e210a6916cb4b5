package queue

import (
	"fmt"
	"time"
)

// Words a person reads for a task (Label): its state, except that a task
// blocked — its agent's last checkpoint said so, or its worktree cannot be
// made — is "blocked", and one that waits for its blocked_by tasks is
// "waiting". state.json keeps State as it is ("blocked" for the latter).
const (
	LabelBlocked = "blocked"
	LabelWaiting = "waiting"
)

// IsBlocked reports whether the task is blocked on something a person may
// have to do: its agent's last checkpoint said `Status: blocked`, or it is
// held (its worktree's branches conflict). A complete or failed task is not.
func (s Status) IsBlocked() bool {
	return s.State.open() && (s.Summary == "blocked" || s.Held)
}

// BlockedOn is what a blocked task is blocked on: its last checkpoint's
// blockers, or why it is held.
func (s Status) BlockedOn() []string {
	if s.Held && s.Reason != "" {
		return append([]string{s.Reason}, s.Blockers...)
	}
	return s.Blockers
}

// Label is the task's state in a person's words: "blocked" when IsBlocked,
// "waiting" when it waits for its blocked_by tasks, else its State.
func (s Status) Label() string {
	switch {
	case s.IsBlocked():
		return LabelBlocked
	case s.State == Blocked:
		return LabelWaiting
	}
	return string(s.State)
}

// Tally counts tasks by Label.
func Tally(ts []Status) map[string]int {
	m := map[string]int{}
	for _, t := range ts {
		m[t.Label()]++
	}
	return m
}

// WaitsFor lists the blocked_by tasks of t that are not complete in ts.
func WaitsFor(t Status, ts []Status) []string {
	complete := map[string]bool{}
	for _, o := range ts {
		complete[o.ID] = o.State == Complete
	}
	var out []string
	for _, dep := range t.BlockedBy {
		if !complete[dep] {
			out = append(out, dep)
		}
	}
	return out
}

// Subtasks is "19/29" when the task's last checkpoint counted subtasks,
// else "".
func (s Status) Subtasks() string {
	if s.SubtasksTotal <= 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.SubtasksDone, s.SubtasksTotal)
}

// Worked is the time worked on the task beside its estimate (WorkedText).
func (s Status) Worked() string {
	return WorkedText(seconds(s.WorkedSeconds), seconds(s.EstimateSeconds))
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// WorkedText says the time worked beside the estimate, the seeds' "actual vs
// estimated": "1h10m / est. 2h", "2h30m / est. 2h (over by 30m)", "25m"
// without an estimate, "0s / est. 2h" before any work; "" with neither.
func WorkedText(worked, estimate time.Duration) string {
	switch {
	case estimate <= 0 && worked <= 0:
		return ""
	case estimate <= 0:
		return Short(worked)
	case worked > estimate:
		return fmt.Sprintf("%s / est. %s (over by %s)", Short(worked), Short(estimate), Short(worked-estimate))
	}
	return fmt.Sprintf("%s / est. %s", Short(worked), Short(estimate))
}

// Short is a duration as a person writes it, to the minute from a minute
// on: "40s", "25m", "2h", "1h10m", "26h5m".
func Short(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d/time.Second))
	}
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case h == 0:
		return fmt.Sprintf("%dm", m)
	case m == 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh%dm", h, m)
}
