// Package queue holds a team's tasks: their states, the order in which free
// agents take them (file order, blocked_by, a task's own agent), and the
// verify command that decides whether a task the agent calls done is done.
// It is a plain object; the supervisor drives it.
package queue

import (
	"time"

	"github.com/wardenhq/warden/protocol"
)

// State is where a task stands.
type State string

// Task states.
const (
	Pending   State = "pending"   // waiting for a free agent
	Blocked   State = "blocked"   // a blocked_by task is not complete yet
	Running   State = "running"   // an agent works on it
	Verifying State = "verifying" // the agent said it is done; verify runs
	Complete  State = "complete"
	Failed    State = "failed"
)

// open reports whether a task in state s may still make progress.
func (s State) open() bool { return s != Complete && s != Failed }

// Status is one task as the dashboard, state.json and the handoff see it.
type Status struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	State    State    `json:"state"`
	Owner    string   `json:"owner,omitempty"`
	Attempt  int      `json:"attempt"`
	Progress int      `json:"progress"`
	Summary  string   `json:"summary,omitempty"`
	Blockers []string `json:"blockers,omitempty"`  // its last checkpoint said it is blocked on these
	LastDone string   `json:"last_done,omitempty"` // its last checkpoint's last Completed item
	// The seeds' lines of its last checkpoint: its phase, current step,
	// subtasks done of total (total 0: none given) and how many errors.
	Phase         string `json:"phase,omitempty"`
	CurrentStep   string `json:"current_step,omitempty"`
	SubtasksDone  int    `json:"subtasks_done,omitempty"`
	SubtasksTotal int    `json:"subtasks_total,omitempty"`
	Errors        int    `json:"errors,omitempty"`
	// Updated is when its last checkpoint came.
	Updated time.Time `json:"updated,omitzero"`
	// Branch, Base and Repo: its git worktree's branch, the branch it
	// started from and the repository (worktree mode).
	Branch string `json:"branch,omitempty"`
	Base   string `json:"base,omitempty"`
	Repo   string `json:"repo,omitempty"`
	// Ahead is how many commits Branch has that Base has not (filled in by
	// warden status).
	Ahead int `json:"ahead,omitempty"`
	// Held: in state blocked for another reason than its blocked_by (the
	// branches its worktree starts from conflict); Reason says why.
	Held      bool     `json:"held,omitempty"`
	BlockedBy []string `json:"blocked_by,omitempty"`
	Verify    string   `json:"verify,omitempty"`
	Reason    string   `json:"reason,omitempty"`
	// WorkedSeconds is the wall time its sessions ran, in this run, the
	// session under way included; EstimateSeconds its estimate (0: none).
	WorkedSeconds   float64 `json:"worked_seconds,omitempty"`
	EstimateSeconds float64 `json:"estimate_seconds,omitempty"`
	// Usage is what its sessions spent in the run (tokens, dollars where
	// priced); nil before any figure.
	Usage *protocol.Usage `json:"usage,omitempty"`
	// Reviewer is its review_by ("": none); ReviewRound the review round
	// under way or last asked; Findings the last round's findings, open
	// until the next round (or named at completion after the last).
	Reviewer    string   `json:"reviewer,omitempty"`
	ReviewRound int      `json:"review_round,omitempty"`
	Findings    []string `json:"findings,omitempty"`
	// Unreviewed: it completed without review, its reviewer having ended.
	Unreviewed bool `json:"unreviewed,omitempty"`
	// Lands: a land task (land_by), and what stopped the land it resolves.
	Lands string `json:"lands,omitempty"`
}

// TeamProgress is the team's overall progress in percent: the mean of its
// tasks' progress, a complete task counting 100 %.
func TeamProgress(ts []Status) int {
	if len(ts) == 0 {
		return 0
	}
	sum := 0
	for _, t := range ts {
		if t.State == Complete {
			sum += 100
		} else {
			sum += t.Progress
		}
	}
	return sum / len(ts)
}

// Counts returns how many tasks are in each state.
func Counts(ts []Status) map[State]int {
	m := map[State]int{}
	for _, t := range ts {
		m[t.State]++
	}
	return m
}
