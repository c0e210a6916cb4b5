package queue

import (
	"time"

	"github.com/wardenhq/warden/supervisor/config"
)

// Reviewing: the task's agent said it is done and its verify passed; its
// reviewer (review_by) has the diff to review (issue 37).
const Reviewing State = "reviewing"

// review is where a task with a reviewer stands in its review rounds.
type review struct {
	round    int      // the round under way or last asked (0: none yet)
	author   string   // the agent whose complete record is reviewed
	asked    int      // the last round whose review_requested was said
	answered int      // the last round whose answer was recorded
	taken    bool     // a session of the reviewer works on the round now
	sessions int      // sessions the reviewer started on the task's rounds
	findings []string // the last answered round's findings (open until the next round)
	// unreviewed: it completed without review (its reviewer ended)
	unreviewed bool
}

// Review is one round of a task's review, as the reviewer takes it.
type Review struct {
	Task     config.Task // the task reviewed
	Round    int
	Author   string
	Reviewer string
	// First: the round's review_requested is not said yet.
	First bool
	// Branch, Base and Repo: the task's worktree (worktree mode).
	Branch, Base, Repo string
}

// ToReview moves a task its author completed (its verify passed) into
// review: the next round, for its reviewer to take. It returns the round.
func (q *Queue) ToReview(id, author string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.byID[id]
	if t == nil {
		return 0
	}
	t.rv.round++
	t.rv.author, t.rv.taken = author, false
	t.state, t.since = Reviewing, time.Time{}
	q.refresh()
	return t.rv.round
}

// TakeReview gives reviewer the first task in review it reviews that no
// session of it works on already, or nil.
func (q *Queue) TakeReview(reviewer string) *Review {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, t := range q.tasks {
		if t.state != Reviewing || t.cfg.ReviewBy != reviewer || t.rv.taken {
			continue
		}
		t.rv.taken = true
		first := t.rv.asked < t.rv.round
		t.rv.asked = t.rv.round
		q.refresh()
		return &Review{Task: t.cfg, Round: t.rv.round, Author: t.rv.author, Reviewer: reviewer, First: first,
			Branch: t.branch, Base: t.base, Repo: t.repo}
	}
	return nil
}

// ReleaseReview: the reviewer's session on the task's round ended without
// an answer (it crashed, the team checkpoint stopped it): the round is
// asked again, by the reviewer's next session.
func (q *Queue) ReleaseReview(id string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil && t.rv.taken {
		t.rv.taken = false
		q.refresh()
	}
}

// ReviewOutcome is what an answered round does to its task.
type ReviewOutcome int

const (
	// ReviewApproved: no findings; the task completes.
	ReviewApproved ReviewOutcome = iota + 1
	// ReviewBack: findings; the task goes back to its author.
	ReviewBack
	// ReviewExhausted: findings at the last round (max_review_rounds); the
	// task completes with them named.
	ReviewExhausted
)

// ReviewAnswered records the reviewer's answer to round of task id:
// findings (none: approved). ok is false when that round is not the one
// under way or was answered already (an answer is recorded once). With
// findings before the last round the task is pending again, its author
// first to take it; else the caller completes it.
func (q *Queue) ReviewAnswered(id string, round int, findings []string, maxRounds int) (out ReviewOutcome, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.byID[id]
	if t == nil || t.state != Reviewing || round != t.rv.round || t.rv.answered >= round {
		return 0, false
	}
	t.rv.answered, t.rv.taken, t.rv.findings = round, false, findings
	out = OutcomeOf(findings, round, maxRounds)
	if out == ReviewBack {
		t.state, t.owner = Pending, t.rv.author
	}
	q.refresh()
	return out, true
}

// ReviewUnderWay reports whether round of task id waits for its answer:
// an answer now would count (ReviewAnswered).
func (q *Queue) ReviewUnderWay(id string, round int) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.byID[id]
	return t != nil && t.state == Reviewing && round == t.rv.round && t.rv.answered < round
}

// OutcomeOf is what an answer with findings does at round of at most
// maxRounds.
func OutcomeOf(findings []string, round, maxRounds int) ReviewOutcome {
	switch {
	case len(findings) == 0:
		return ReviewApproved
	case round >= maxRounds:
		return ReviewExhausted
	}
	return ReviewBack
}

// ReviewFindings is the last round of task id that found something and
// its findings, while the task is back with its author or complete with
// them open (none: no findings to fix).
func (q *Queue) ReviewFindings(id string) (round int, findings []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.byID[id]
	if t == nil || len(t.rv.findings) == 0 || t.state == Reviewing {
		return 0, nil
	}
	return t.rv.answered, append([]string(nil), t.rv.findings...)
}

// ReviewsOf lists the tasks in review that reviewer reviews.
func (q *Queue) ReviewsOf(reviewer string) []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	var ids []string
	for _, t := range q.tasks {
		if t.state == Reviewing && t.cfg.ReviewBy == reviewer {
			ids = append(ids, t.cfg.ID)
		}
	}
	return ids
}

// RestoreReview gives task id what a run carried on knew of its review
// rounds (state.json): its last round and author; inReview, the round was
// asked and not answered — the task is in review again, and its
// reviewer's next session asks the round again (its review_requested was
// said); else the round was answered, and findings (none: none open) go
// to the task's next session. A task without a reviewer is left alone.
func (q *Queue) RestoreReview(id string, round int, author string, inReview bool, findings []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.byID[id]
	if t == nil || round <= 0 || t.cfg.ReviewBy == "" || !t.state.open() {
		return
	}
	t.rv = review{round: round, author: author, asked: round, answered: round, findings: findings}
	if inReview {
		t.rv.answered, t.rv.findings = round-1, nil
		t.state, t.owner, t.since = Reviewing, author, time.Time{}
		q.refresh()
	}
}

// Unreviewed marks task id as completing without review: its reviewer
// ended for good.
func (q *Queue) Unreviewed(id string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil {
		t.rv.unreviewed = true
	}
}

// reviewSession counts a session of the reviewer on a round of task id
// (review id) and returns its number; ok is false for no such review.
func (q *Queue) reviewSession(id string, count bool) (n int, ok bool) {
	task, _, isReview := config.ParseReviewID(id)
	t := q.byID[task]
	if !isReview || t == nil {
		return 0, false
	}
	if count {
		t.rv.sessions++
	}
	return t.rv.sessions, true
}
