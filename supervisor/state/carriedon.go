package state

import (
	"fmt"
	"strings"
	"time"
)

// CarryOn is one time a run was carried on by a new supervisor (a
// restart after a crash, `warden run` after a stop, a scheduler's rerun):
// when, after what, and where each open task took up its work again. A run
// carried on twice has two; the page and `warden status` show them so
// that a person who was asleep sees the team was resumed and from what.
type CarryOn struct {
	At time.Time `json:"at"`
	// After is how the earlier supervisor ended: "stopped at 03:10" or
	// "its supervisor died; last update at 03:10".
	After string `json:"after"`
	// Resumed are the open tasks that resume from a checkpoint of the run;
	// an open task not named starts from its prompt.
	Resumed []ResumedFrom `json:"resumed,omitempty"`
	// Upgraded: the earlier supervisor was this process before `warden
	// upgrade` replaced its binary; TakenBack are the agents whose
	// sessions the new one took back from the holder.
	Upgraded  *Upgraded `json:"upgraded,omitempty"`
	TakenBack []string  `json:"taken_back,omitempty"`
}

// Upgraded says which warden an upgrade replaced with which.
type Upgraded struct {
	From string `json:"from"` // `warden --version` of the earlier binary
	To   string `json:"to"`   // and of this one
}

// ResumedFrom is a task resuming from a checkpoint.
type ResumedFrom struct {
	Task         string    `json:"task"`
	Agent        string    `json:"agent"`
	CheckpointID string    `json:"checkpoint_id"`
	Progress     int       `json:"progress"`
	Status       string    `json:"status"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// carriedLine says the last time the run was carried on, for the
// dashboard: "resumed 2026-11-26 03:12 after its
// supervisor died; last update at 2026-11-26 03:10: T1 from w1's
// checkpoint at 30% (implementing)". "" for a run never carried on.
func carriedLine(s Snapshot) string {
	if len(s.CarriedOn) == 0 {
		return ""
	}
	c := s.CarriedOn[len(s.CarriedOn)-1]
	line := "resumed " + c.At.Local().Format("2006-01-02 15:04")
	if n := len(s.CarriedOn); n > 1 {
		line += fmt.Sprintf(" (carried on %d times)", n)
	}
	line += " after " + c.After + ": "
	if len(c.Resumed) == 0 {
		return line + "no task had a checkpoint to resume from"
	}
	parts := make([]string, 0, len(c.Resumed))
	for _, r := range c.Resumed {
		parts = append(parts, fmt.Sprintf("%s from %s's checkpoint at %d%% (%s)", r.Task, r.Agent, r.Progress, r.Status))
	}
	return line + strings.Join(parts, "; ")
}
