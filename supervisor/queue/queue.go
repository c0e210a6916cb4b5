package queue

import (
	"slices"
	"sync"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
)

// taskState is one [[task]] and where it stands.
type taskState struct {
	cfg      config.Task
	state    State
	owner    string // agent working on it, or last one that did
	attempt  int    // sessions started for it
	progress int
	summary  string        // last checkpoint's status line
	blockers []string      // last checkpoint's blockers, when blocked
	lastDone string        // last checkpoint's last Completed item
	seed     seedFields    // last checkpoint's phase, step, subtasks, errors
	updated  time.Time     // when its last checkpoint came
	verify   string        // last verify result
	reason   string        // why it failed
	worked   time.Duration // wall time its sessions ran
	since    time.Time     // when its session under way started (zero: none)
	// afresh: its checkpoints before this time are not resumed from, and
	// note tells its next session why (a checkpoint that could not be).
	afresh time.Time
	note   string
	held   bool // blocked by something else than blocked_by (a merge conflict)
	// its worktree: branch, base and repository (worktree mode)
	branch, base, repo string
	usage              protocol.Usage // what its sessions spent in the run (usage.go)
	rv                 review         // its review rounds (review.go)
}

// Queue hands tasks to free agents in file order, respecting blocked_by and
// a task's `agent`. It is a plain object; the supervisor serialises use.
type Queue struct {
	mu      sync.Mutex
	tasks   []*taskState
	byID    map[string]*taskState
	changed chan struct{}    // closed and replaced on every change
	now     func() time.Time // the team's clock: a session's start, time worked so far
	onEnd   func(id string)  // told of a task that ended or was handed over (onend.go)
}

// New builds the queue from the team's tasks.
func New(tasks []config.Task) *Queue {
	q := &Queue{byID: map[string]*taskState{}, changed: make(chan struct{}), now: time.Now}
	for _, t := range tasks {
		ts := &taskState{cfg: t, state: Pending}
		q.tasks = append(q.tasks, ts)
		q.byID[t.ID] = ts
	}
	q.refresh()
	return q
}

// Add adds a task the run made (a land task, land_by) after the team
// file's; a task of that id already there is left as it is (false).
func (q *Queue) Add(task config.Task) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.byID[task.ID] != nil {
		return false
	}
	ts := &taskState{cfg: task, state: Pending}
	q.tasks = append(q.tasks, ts)
	q.byID[task.ID] = ts
	q.refresh()
	return true
}

// refresh marks tasks blocked or pending by their dependencies, and wakes
// whoever waits for a change.
func (q *Queue) refresh() {
	close(q.changed)
	q.changed = make(chan struct{})
	for _, t := range q.tasks {
		if (t.state != Pending && t.state != Blocked) || t.held {
			continue
		}
		t.state = Pending
		for _, dep := range t.cfg.BlockedBy {
			if d := q.byID[dep]; d == nil || d.state != Complete {
				t.state = Blocked
			}
		}
	}
}

// Take gives agent the next available task, marking it running, or nil.
func (q *Queue) Take(agent string) *config.Task {
	q.mu.Lock()
	defer q.mu.Unlock()
	// A task released by this agent (a stop, a team checkpoint) goes back to
	// it first; then the others in file order.
	for pass := 0; pass < 2; pass++ {
		if t := q.takeable(agent, pass == 0); t != nil {
			t.state, t.owner = Running, agent
			q.refresh()
			c := t.cfg
			return &c
		}
	}
	return nil
}

func (q *Queue) takeable(agent string, ownOnly bool) *taskState {
	for _, t := range q.tasks {
		if ownOnly && t.owner != agent {
			continue
		}
		if t.state == Pending && (t.cfg.Agent == "" || t.cfg.Agent == agent) && t.cfg.ReviewBy != agent {
			return t
		}
	}
	return nil
}

// SetClock makes the queue read the time from now (the team's clock; the
// default is the wall clock).
func (q *Queue) SetClock(now func() time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.now = now
}

// Set moves a task to a new state; complete tasks unblock their dependents.
func (q *Queue) Set(id string, state State, reason string) {
	q.mu.Lock()
	t := q.byID[id]
	if t != nil {
		t.state, t.reason = state, reason
		if state != Running && state != Verifying {
			t.since = time.Time{} // no session works on it any more
		}
		q.refresh()
	}
	q.mu.Unlock()
	if t != nil && !state.open() {
		q.ended(id)
	}
}

// Changed returns a channel that is closed at the queue's next change.
func (q *Queue) Changed() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.changed
}

// NextAttempt counts a new session for task id, starting now, and returns
// its number. Until AddWork ends it, the session's time so far is in the
// task's time worked as Snapshot shows it.
// Attempts is how many sessions the task has had in the run.
func (q *Queue) Attempts(id string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil {
		return t.attempt
	}
	n, _ := q.reviewSession(id, false)
	return n
}

func (q *Queue) NextAttempt(id string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil {
		t.attempt++
		t.since = q.now()
		return t.attempt
	}
	n, _ := q.reviewSession(id, true) // a review id: the reviewer's sessions on the task's rounds
	return n
}

// AgentFailed fails the task the agent was on and every open task that only
// that agent may take; it returns the ids it failed.
//
// A task another agent may take (taker reports whether one can) goes back
// to the queue instead, for that agent to resume it from its checkpoint;
// those ids are in released. A task fails only when nobody may take it.
func (q *Queue) AgentFailed(agent, current, reason string, taker func(config.Task) bool) (failed, released []string) {
	defer func() { q.ended(append(slices.Clone(failed), released...)...) }()
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, t := range q.tasks {
		if !t.state.open() || (t.cfg.ID != current && t.cfg.Agent != agent) {
			continue
		}
		if taker != nil && t.cfg.Agent != agent && taker(t.cfg) {
			t.state, t.owner, t.since = Pending, "", time.Time{}
			released = append(released, t.cfg.ID)
			continue
		}
		t.state, t.reason, t.since = Failed, reason, time.Time{}
		failed = append(failed, t.cfg.ID)
	}
	q.refresh()
	return failed, released
}

// Prefer makes agent the first to be offered task id (it holds its checkpoint).
func (q *Queue) Prefer(id, agent string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil && (t.cfg.Agent == "" || t.cfg.Agent == agent) {
		t.owner = agent
	}
}

// Checkpoint is what the queue keeps of a task's last checkpoint.
type Checkpoint struct {
	Progress int
	Status   string
	Blockers []string // when blocked
	LastDone string   // the last Completed item
	At       time.Time
	// The seeds' optional lines: Phase, Current Step, Subtasks (done of
	// total; Total 0 when the block had none) and how many Errors.
	Phase, CurrentStep          string
	SubtasksDone, SubtasksTotal int
	Errors                      int
}

// seedFields is what the queue keeps of a checkpoint's optional seed lines.
type seedFields struct {
	phase, step     string
	subDone, subAll int
	errors          int
}

// Progress records a task's last checkpoint. It reports whether the task
// just became blocked.
func (q *Queue) Progress(id string, cp Checkpoint) (nowBlocked bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.byID[id]
	if t == nil {
		return false
	}
	nowBlocked = cp.Status == "blocked" && t.summary != "blocked"
	t.progress, t.summary, t.blockers, t.lastDone, t.updated = cp.Progress, cp.Status, nil, cp.LastDone, cp.At
	t.seed = seedFields{phase: cp.Phase, step: cp.CurrentStep, subDone: cp.SubtasksDone, subAll: cp.SubtasksTotal, errors: cp.Errors}
	if cp.Status == "blocked" {
		t.blockers = cp.Blockers
	}
	return nowBlocked
}

// Verified records the result of a task's verify command.
func (q *Queue) Verified(id, result string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil {
		t.verify = result
	}
}

// Release puts a running task back in the queue (its agent stopped without
// finishing it); the next free agent resumes it from its checkpoint.
func (q *Queue) Release(id string) {
	q.Set(id, Pending, "")
}

// Open reports whether any task can still make progress: pending, running,
// verifying or in review, or blocked behind one of those.
func (q *Queue) Open() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, t := range q.tasks {
		switch t.state {
		case Pending, Running, Verifying, Reviewing:
			return true
		}
	}
	return false
}

// OpenCount is how many tasks are not complete or failed.
func (q *Queue) OpenCount() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, t := range q.tasks {
		if t.state.open() {
			n++
		}
	}
	return n
}

// AddWork adds the wall time of one session to the task's time worked, and
// returns the total.
func (q *Queue) AddWork(id string, d time.Duration) time.Duration {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil {
		t.worked += d
		t.since = time.Time{}
		return t.worked
	}
	return 0
}

// Worked is the wall time the task's sessions ran so far.
func (q *Queue) Worked(id string) time.Duration {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil {
		return t.worked
	}
	return 0
}

// StartAfresh makes the task start over from its prompt: checkpoints before
// since are not offered, and note goes into the next first prompt.
func (q *Queue) StartAfresh(id, note string, since time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil {
		t.afresh, t.note = since, note
	}
}

// Afresh says from when the task's checkpoints may be resumed (zero: any),
// and the note for its next session.
func (q *Queue) Afresh(id string) (since time.Time, note string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil {
		return t.afresh, t.note
	}
	return time.Time{}, ""
}

// Hold blocks the task for another reason than its blocked_by (its
// worktree could not be made: the branches it starts from conflict).
func (q *Queue) Hold(id, reason string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil {
		t.state, t.reason, t.held, t.since = Blocked, reason, true, time.Time{}
		q.refresh()
	}
}

// SetWorkspace records the task's worktree: its branch, the base it
// started from and the repository.
func (q *Queue) SetWorkspace(id, branch, base, repo string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t := q.byID[id]; t != nil {
		t.branch, t.base, t.repo = branch, base, repo
	}
}

// Len is how many tasks the queue holds.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.tasks)
}

// Snapshot lists every task in file order. A task's time worked counts
// its session under way so far.
func (q *Queue) Snapshot() []Status {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.now()
	out := make([]Status, 0, len(q.tasks))
	for _, t := range q.tasks {
		worked := t.worked
		if !t.since.IsZero() && now.After(t.since) {
			worked += now.Sub(t.since)
		}
		out = append(out, Status{ID: t.cfg.ID, Title: t.cfg.Title, State: t.state, Owner: t.owner,
			Attempt: t.attempt, Progress: t.progress, Summary: t.summary, Blockers: t.blockers, LastDone: t.lastDone, Updated: t.updated,
			Phase: t.seed.phase, CurrentStep: t.seed.step, SubtasksDone: t.seed.subDone, SubtasksTotal: t.seed.subAll, Errors: t.seed.errors,
			Branch: t.branch, Base: t.base, Repo: t.repo, Held: t.held,
			BlockedBy: t.cfg.BlockedBy, Verify: t.verify, Reason: t.reason,
			WorkedSeconds: worked.Seconds(), EstimateSeconds: t.cfg.Estimate.Seconds(), Usage: usageOf(t),
			Reviewer: t.cfg.ReviewBy, ReviewRound: t.rv.round, Findings: t.rv.findings, Unreviewed: t.rv.unreviewed,
			Lands: t.cfg.Lands})
	}
	return out
}
