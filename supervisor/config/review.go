package config

import (
	"strconv"
	"strings"
)

// DefaultMaxReviewRounds is max_review_rounds when the team file has none.
const DefaultMaxReviewRounds = 2

// Review is who reviews a team's tasks and for how many rounds (issue 37):
// review_by at the top level is every task's reviewer unless the task
// names its own (review_by = "" on a task: none).
type Review struct {
	// ReviewBy is the team's reviewer, an [[agent]]'s name; "" for none.
	ReviewBy string
	// MaxReviewRounds is how many rounds with findings a task has before
	// it completes with its open findings named (1 or more).
	MaxReviewRounds int
}

// ReviewSuffix is what a review id adds to its task's id: T1.review1 is
// the first review round of T1. A task's id may not contain it.
const ReviewSuffix = ".review"

// ReviewID is the id of round of task's review.
func ReviewID(task string, round int) string {
	return task + ReviewSuffix + strconv.Itoa(round)
}

// ParseReviewID splits a review id into its task and round; ok is false
// for an id that is no review id.
func ParseReviewID(id string) (task string, round int, ok bool) {
	i := strings.LastIndex(id, ReviewSuffix)
	if i <= 0 {
		return "", 0, false
	}
	digits := id[i+len(ReviewSuffix):]
	if digits == "" || len(digits) > 4 {
		return "", 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return "", 0, false
		}
		round = round*10 + int(c-'0')
	}
	return id[:i], round, round > 0
}

// reviewTeam reads the top level's review_by and max_review_rounds.
func (d *decoder) reviewTeam(t *Team, top table) {
	t.MaxReviewRounds = top.integer("max_review_rounds", DefaultMaxReviewRounds, 1, 100, "between 1 and 100")
	if by, ok := top.str("review_by"); ok {
		t.ReviewBy = by
	}
}

// reviewTask reads a task's review_by: the team's unless the task says
// its own ("" turns review off for it).
func (d *decoder) reviewTask(task *Task, t table, team string) {

	task.ReviewBy = team
	if by, ok := t.str("review_by"); ok {
		task.ReviewBy = by
	}
}

// reviewCheck validates the reviewers, after the agents and tasks: each
// is an agent of the team, never the task's own pinned agent, and a task
// nobody pinned has another agent than its reviewer to do it. The error
// is at the task's review_by when it has one, else at the team's.
func (d *decoder) reviewCheck(team *Team, top table, tables []table) {
	agents := make(map[string]bool, len(team.Agents))
	for _, a := range team.Agents {
		agents[a.Name] = true
	}
	if team.ReviewBy != "" && !agents[team.ReviewBy] {
		d.errorf(top.key("review_by"), "review_by names unknown agent %q", team.ReviewBy)
	}
	for i, task := range team.Tasks {
		if i >= len(tables) || task.ReviewBy == "" {
			continue
		}
		t := tables[i]
		at := top.key("review_by")
		if _, own := t.vals["review_by"]; own {
			at = t.key("review_by")
		} else if !agents[task.ReviewBy] {
			continue // said once, at the team's key
		}
		switch {
		case strings.Contains(task.ID, ReviewSuffix):
			d.errorf(t.key("id"), "task id %q contains %q, which names review rounds", task.ID, ReviewSuffix)
		case !agents[task.ReviewBy]:
			d.errorf(at, "review_by names unknown agent %q", task.ReviewBy)
		case task.Agent == task.ReviewBy:
			d.errorf(at, "task %s is reviewed by its own agent %q; review_by must name another agent", task.ID, task.ReviewBy)
		case task.Agent == "" && len(team.Agents) < 2:
			d.errorf(at, "task %s is reviewed by %q, the team's only agent; review_by needs another agent to do the task", task.ID, task.ReviewBy)
		}
	}
}
