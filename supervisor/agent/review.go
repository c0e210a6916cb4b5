package agent

import (
	"fmt"
	"strings"
	"sync"

	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
)

// Reviews are the team's review rounds (review_by, issue 37): a task
// whose agent said it is done, and whose verify passed, goes into review
// instead of completing; its reviewer takes the round like a task, in a
// session of its own whose task is the review id (T1.review1), and answers
// with a checkpoint block for it. No findings complete the task; findings
// send it back to its author, whose next session has them in its first
// prompt; after max_review_rounds rounds with findings the task completes
// with them named.
type Reviews struct {
	mu     sync.Mutex
	agents map[string]*Agent
	gone   map[string]string // reviewers that ended for good → why
}

// NewReviews returns the team's review rounds; each agent joins in New.
func NewReviews() *Reviews {
	return &Reviews{agents: map[string]*Agent{}, gone: map[string]string{}}
}

func (v *Reviews) add(a *Agent) {
	if v == nil {
		return
	}
	v.mu.Lock()
	v.agents[a.cfg.Name] = a
	delete(v.gone, a.cfg.Name)
	v.mu.Unlock()
}

func (v *Reviews) agent(name string) *Agent {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.agents[name]
}

// goneWhy says why reviewer ended for good, or "".
func (v *Reviews) goneWhy(reviewer string) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.gone[reviewer]
}

// reviewed reports whether the team reviews task (it has a reviewer, and
// the review rounds are wired).
func (d *Deps) reviewed(task *config.Task) bool {
	return d.Reviews != nil && task != nil && task.ReviewBy != ""
}

// isReview reports whether task is a round of a review (its id a review id).
func isReview(task *config.Task) bool {
	if task == nil {
		return false
	}
	_, _, ok := config.ParseReviewID(task.ID)
	return ok
}

// toReview: the author's record cp says the task is done and its verify
// passed (result); the task goes into review, its work committed for the
// diff. Its record stays open (not archived) until the task completes.
// r.mu is held.
func (r *reporter) toReview(cp *protocol.Checkpoint, result string) {
	a, d, task := r.a, r.a.d, r.task
	if why := d.Reviews.goneWhy(task.ReviewBy); why != "" {
		a.log.Warn("task completes unreviewed: its reviewer ended", "task", task.ID, "reviewer", task.ReviewBy, "reason", why, console.Printed, true)
		r.Printf("WARNING: %s completes unreviewed: its reviewer %s ended (%s)\n", task.ID, task.ReviewBy, why)
		d.Queue.Unreviewed(task.ID)
		r.finish(cp, result, "unreviewed", why)
		return
	}
	r.completed = true
	a.setFeedback("")
	if r.ts != nil {
		r.commitNow()
	}
	if latest, _ := d.Store.Load(a.cfg.Name, task.ID); latest == nil || latest.CheckpointID != cp.CheckpointID {
		cp.UpdatedAt = d.Clock.Now().UTC()
		if err := d.Store.Save(cp); err != nil {
			a.log.Error("verified checkpoint not saved again", "task", task.ID, "checkpoint_id", cp.CheckpointID, "error", err)
		}
	}
	round := d.Queue.ToReview(task.ID, a.cfg.Name)
	a.log.Info("task in review", "task", task.ID, "reviewer", task.ReviewBy, "round", round, "verify", result)
	r.Printf("IN REVIEW: %s round %d of at most %d, by %s\n", titled(task), round, d.Config.MaxReviewRounds, task.ReviewBy)
	d.Team.Publish()
}

// nextReview is the synthetic task of the next review round the agent
// reviews, or nil: its id the review id, its prompt the review request.
// review_requested is said at a round's first asking only. The caller
// holds the generation's start gate.
func (a *Agent) nextReview() *config.Task {
	d := a.d
	if d.Reviews == nil {
		return nil
	}
	rv := d.Queue.TakeReview(a.cfg.Name)
	if rv == nil {
		return nil
	}
	id := config.ReviewID(rv.Task.ID, rv.Round)
	if rv.First {
		d.Events.Emit(event.ReviewRequested, a.cfg.Name, rv.Task.ID, "reviewer", a.cfg.Name, "round", rv.Round, "author", rv.Author)
		d.Team.Printf(a.cfg.Name, "REVIEW REQUESTED: %s round %d, of %s's work, by %s\n", titled(&rv.Task), rv.Round, rv.Author, a.cfg.Name)
	} else {
		a.log.Info("review round asked again: the last session on it ended without an answer", "task", rv.Task.ID, "round", rv.Round)
	}
	return &config.Task{ID: id, Title: "review of " + titled(&rv.Task) + fmt.Sprintf(", round %d", rv.Round),
		Prompt: a.reviewRequest(rv, id)}
}

// reviewAnswered takes the reviewer's record cp that says the review id's
// round is done: its Remaining items are the findings ("nothing": none).
// The answer is recorded once (queue.ReviewAnswered); review_done says
// it. r.mu is held.
func (r *reporter) reviewAnswered(cp *protocol.Checkpoint) {
	a, d := r.a, r.a.d
	r.completed = true
	taskID, round, _ := config.ParseReviewID(r.task.ID)
	if err := d.Store.Archive(a.cfg.Name, r.task.ID); err != nil {
		a.log.Error("review answer not archived", "review", r.task.ID, "error", err)
	}
	findings := Findings(cp.Remaining)
	maxRounds := d.Config.MaxReviewRounds
	if !d.Queue.ReviewUnderWay(taskID, round) {
		a.log.Warn("review answer for a round no longer under way: not counted", "review", r.task.ID)
		return
	}
	// review_done is said before the queue takes the answer: findings put
	// the task back with its author at once, and its dispatch must not come
	// first in events.jsonl (one story). Only this session holds the round.
	out := queue.OutcomeOf(findings, round, maxRounds)
	kv := []any{"reviewer", a.cfg.Name, "round", round, "findings", len(findings), "approved", out == queue.ReviewApproved}
	if out == queue.ReviewExhausted {
		kv = append(kv, "open", findings)
	}
	d.Events.Emit(event.ReviewDone, a.cfg.Name, taskID, kv...)
	if _, ok := d.Queue.ReviewAnswered(taskID, round, findings, maxRounds); !ok {
		a.log.Warn("review answer for a round no longer under way: not counted", "review", r.task.ID)
		return
	}
	task, _ := d.Config.Task(taskID)
	author := r.authorOf(taskID)
	switch out {
	case queue.ReviewApproved:
		a.log.Info("review approved", "task", taskID, "round", round)
		r.Printf("REVIEW APPROVED: %s round %d by %s\n", taskID, round, a.cfg.Name)
		r.completeReviewed(task, author, "review_rounds", round)
	case queue.ReviewExhausted:
		a.log.Warn("task completes with open review findings", "task", taskID, "rounds", round, "findings", findings, console.Printed, true)
		r.Printf("WARNING: %s completes after %d review rounds with %d open finding(s) from %s: %s\n",
			taskID, round, len(findings), a.cfg.Name, strings.Join(findings, "; "))
		r.completeReviewed(task, author, "review_rounds", round, "open_findings", findings)
	default:
		a.log.Info("review found something: back to the author", "task", taskID, "round", round, "findings", len(findings))
		r.Printf("REVIEW FINDINGS: %s round %d by %s: %d finding(s); back to %s\n", taskID, round, a.cfg.Name, len(findings), author)
		d.Team.Publish()
	}
}

// Findings are a review answer's Remaining items that name something:
// "nothing", "none" and the like are no finding.
func Findings(remaining []string) []string {
	var out []string
	for _, item := range remaining {
		s := strings.ToLower(strings.TrimRight(strings.TrimSpace(item), ".!"))
		switch s {
		case "", "-", "nothing", "none", "n/a", "nothing left", "nothing to fix", "no findings", "approved":
			continue
		}
		out = append(out, strings.TrimSpace(item))
	}
	return out
}

// authorOf is the agent whose complete record of task is under review.
func (r *reporter) authorOf(task string) string {
	for _, s := range r.a.d.Queue.Snapshot() {
		if s.ID == task {
			return s.Owner
		}
	}
	return ""
}

// completeReviewed completes task as its author's complete would have:
// its author's record archived, its work committed (and merged with merge
// = "ff"), task_completed with kv, TASK COMPLETE.
func (r *reporter) completeReviewed(task *config.Task, author string, kv ...any) {
	if task == nil {
		return
	}
	d := r.a.d
	au := d.Reviews.agent(author)
	if au == nil {
		r.a.log.Error("review: the task's author is no agent of the team", "task", task.ID, "author", author)
		return
	}
	ar := &reporter{a: au, g: r.g, task: task, dir: au.cfg.Dir}
	if d.Workspaces != nil {
		ar.ts = d.Workspaces.Space(task.ID)
	}
	cp, _ := d.Store.Load(author, task.ID)
	if cp == nil {
		cp = &protocol.Checkpoint{TaskID: task.ID, Agent: author, Status: protocol.StatusComplete}
	}
	ar.finish(cp, verifyResult(d.Queue, task.ID), kv...)
}

// verifyResult is the task's last verify result as the queue keeps it.
func verifyResult(q *queue.Queue, task string) string {
	for _, s := range q.Snapshot() {
		if s.ID == task && s.Verify != "" {
			return s.Verify
		}
	}
	return "none"
}

// reviewerEnded: the agent ended for good (not a team checkpoint); the
// tasks it was to review complete unreviewed, each with a WARNING line,
// and so does any task that goes into review for it later.
func (a *Agent) reviewerEnded(g *Generation, why string) {
	d := a.d
	if d.Reviews == nil {
		return
	}
	if why == "" {
		why = "its agent ended"
	}
	d.Reviews.mu.Lock()
	d.Reviews.gone[a.cfg.Name] = why
	d.Reviews.mu.Unlock()
	for _, id := range d.Queue.ReviewsOf(a.cfg.Name) {
		task, ok := d.Config.Task(id)
		if !ok {
			continue
		}
		a.log.Warn("task completes unreviewed: its reviewer ended", "task", id, "reason", why, console.Printed, true)
		d.Team.Printf(a.cfg.Name, "WARNING: %s completes unreviewed: its reviewer %s ended (%s)\n", id, a.cfg.Name, why)
		d.Queue.Unreviewed(id)
		r := &reporter{a: a, g: g}
		r.completeReviewed(task, r.authorOf(id), "unreviewed", why)
	}
}

// doneReason is why an agent whose session's task is done is idle: its
// task complete, in review, or its review round answered.
func doneReason(q *queue.Queue, task *config.Task) string {
	switch {
	case isReview(task):
		return "review answered"
	case task != nil && q.StateOf(task.ID) == queue.Reviewing:
		return "task in review"
	}
	return "task complete"
}
