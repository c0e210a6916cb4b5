package report

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/wardenhq/warden/internal/safefile"
)

// EventMax bounds the JSON of the report the team_done event carries (a
// line of events.jsonl, a notify command's stdin): 16 KiB.
const EventMax = 16 << 10

// AtEnd is the report of a run that just ended with exitCode, written to
// report.md in the state dir at root (0600, replaced atomically, never
// through a link), as of now. The caller attaches r.Bounded(EventMax) to
// its team_done event.
func AtEnd(root string, now time.Time, exitCode int) (*Report, error) {
	r, err := Build(root, now)
	if err != nil {
		return nil, err
	}
	r.Run.ExitCode = &exitCode
	if err := safefile.WriteAtomic(root, Path(root), []byte(Markdown(r))); err != nil {
		return r, fmt.Errorf("write %s: %w", FileName, err)
	}
	return r, nil
}

// Refresh writes report.md again for a run that ended (it has one), as
// of now — after warden land, so that the morning report says what
// landed. A state dir without report.md is left alone.
func Refresh(root string, now time.Time) error {
	if _, err := safefile.ReadFile(Path(root)); err != nil {
		return nil
	}
	r, err := Build(root, now)
	if err != nil {
		return err
	}
	if err := safefile.WriteAtomic(root, Path(root), []byte(Markdown(r))); err != nil {
		return fmt.Errorf("write %s: %w", FileName, err)
	}
	return nil
}

// Bounded is r, or a copy whose lists are cut (the tasks not complete and
// the first items kept; Summary stays whole; Truncated set) so that its
// JSON takes at most max bytes.
func (r *Report) Bounded(max int) *Report {
	if size(r) <= max {
		return r
	}
	for _, k := range []int{20, 10, 5, 2, 0} {
		if c := r.cut(k); size(c) <= max {
			return c
		}
	}
	c := r.cut(0)
	c.Agents, c.Tasks, c.Run.CarriedOn = []Agent{}, []Task{}, []CarryOn{}
	c.Notes = []string{fmt.Sprintf("the report's lists did not fit the event's %d bytes: report.md has them", max)}
	return c
}

// cut is a copy of r with every list cut to its first k items (the tasks:
// those not complete first).
func (r *Report) cut(k int) *Report {
	c := *r
	c.Truncated = true
	var tasks []Task
	for _, pass := range []bool{false, true} {
		for _, t := range r.Tasks {
			if (t.State == "complete") == pass {
				tasks = append(tasks, t)
			}
		}
	}
	c.Tasks = first(tasks, k)
	c.Agents = first(r.Agents, k)
	c.Waits = first(r.Waits, k)
	c.Restarts = first(r.Restarts, k)
	c.Failures = first(r.Failures, k)
	c.Review = first(r.Review, k)
	c.Limits = first(r.Limits, k)
	c.TeamCheckpoints = first(r.TeamCheckpoints, k)
	c.Run.CarriedOn = first(r.Run.CarriedOn, k)
	return &c
}

// first is a copy of l's first k items, never nil.
func first[T any](l []T, k int) []T {
	out := make([]T, 0, min(len(l), k))
	return append(out, l[:min(len(l), k)]...)
}

func size(r *Report) int {
	b, err := json.Marshal(r)
	if err != nil {
		return 0
	}
	return len(b)
}
