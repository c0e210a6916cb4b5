package agent

import (
	"cmp"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/session"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/supervisor/workspace"
)

// reporter is what one session of the agent reports to (session.Reporter):
// it turns the session's facts into records, events, task states and team
// checkpoints.
type reporter struct {
	a    *Agent
	g    *Generation
	task *config.Task
	s    *session.Session
	dir  string               // where the session works: the agent's dir, or the task's worktree
	ts   *TaskSpace           // the task's worktree, nil in shared mode
	from *protocol.Checkpoint // the checkpoint the session resumes from, or nil

	startedAt time.Time // when work on the task began, read once a session
	// drawn are the records of a session taken back (takeback.go): an
	// answer equal to one of them is that record drawn again on its screen
	// (the new warden's emulator starts afresh), not a new one.
	// A session taken back adds each record it makes: its emulator, begun
	// from what the holder kept, cannot tell an answer drawn before it
	// from one drawn again (a redraw, a screen read again once a request
	// is typed whose echo it does not find).
	drawn     []*protocol.Checkpoint
	dead      int // drawn[:dead] are the dead warden's (sameAnswer's late lines apply to them alone)
	takenBack bool

	// mu orders the records of the session (its loop) with the verdict of
	// the task's verify (its own goroutine, verify.go).
	mu        sync.Mutex
	verifying *protocol.Checkpoint // the record a running verify answers, or nil
	verified  chan struct{}        // closed when the last verify started has ended (nil: none)
	completed bool                 // the task is complete: nothing more is recorded
	// verifyStopped: the team's stop ended the last verify.
	verifyStopped bool
	// spent is what the session spent, as it last said (usage.go).
	spent protocol.Usage
	// stalled is why the session stalled (agent_stalled), in words; "" if it
	// did not.
	stalled string
}

func (r *reporter) Event(name string, kv ...any) {
	if name == event.AgentStalled {
		r.stalled = stallReason(kv)
	}
	if name == event.DialogAnswered {
		r.a.answered(kv)
	}
	if name == event.AgentNudged {
		r.a.noteNudge(taskID(r.task))
	}
	switch name { // state.json first: a warden killed after the event knows
	case event.CheckpointRequested:
		r.a.awaits(r.a.d.Clock.Now())
	case event.CheckpointTimeout, event.CheckpointRejected:
		r.a.awaits(time.Time{})
	}
	r.a.d.Events.Emit(name, r.a.cfg.Name, taskID(r.task), kv...)
}

func (r *reporter) Printf(format string, a ...any) { r.a.d.Team.Printf(r.a.cfg.Name, format, a...) }

func (r *reporter) Started(s *session.Session) {
	r.s = s
	r.a.policy.Started()
	r.a.started(s)
	r.a.d.Overlaps.starting(r.a, r.task) // a task held for another's files stays held in whoever takes it up
	r.a.holdNew(s)                       // its account at its limit, the team's budget reached: parked from its start
	if r.task != nil {
		r.dispatchRecord(s)
	}
}

// dispatchRecord writes warden's own record as a session starts on the
// task — the checkpoint it resumes from, or progress 0 — so that a session
// that crashes in its first minutes still leaves one (trigger dispatch).
func (r *reporter) dispatchRecord(s *session.Session) {
	a, d, task := r.a, r.a.d, r.task
	now := d.Clock.Now().UTC()
	cp := protocol.Checkpoint{Status: protocol.StatusImplementing, Resumable: true,
		Remaining: []string{"start the task: " + cmp.Or(task.Title, task.ID)}, StartedAt: now}
	if r.from != nil {
		cp = *r.from
	}
	cp.TaskID = task.ID
	protocol.Origin{Agent: a.cfg.Name, TaskTitle: task.Title, SessionID: s.ID(), Attempt: s.Attempt(),
		Trigger: protocol.TriggerDispatch, StartedAt: cp.StartedAt, At: now, Next: d.Config.CheckpointInterval}.Stamp(&cp)
	cp.Git = r.gitInfo()
	if err := d.Store.Save(&cp); err != nil {
		a.log.Error("dispatch record not saved", "task", task.ID, "error", err)
	}
}

// QueueCheckpoint is what the queue keeps of a record: its progress,
// status, blockers, last completed item, and the seeds' phase, current
// step, subtasks done of total and how many errors.
func QueueCheckpoint(cp *protocol.Checkpoint) queue.Checkpoint {
	q := queue.Checkpoint{Progress: cp.ProgressPercent, Status: cp.Status, Blockers: cp.Blockers, At: cp.UpdatedAt,
		Phase: cp.Phase, CurrentStep: cp.CurrentStep, Errors: len(cp.Errors)}
	if n := len(cp.Completed); n > 0 {
		q.LastDone = cp.Completed[n-1]
	}
	if st := cp.Subtasks; st != nil {
		q.SubtasksDone, q.SubtasksTotal = st.Done, st.Total
	}
	return q
}

// titled names task on a progress line: "T1 (its title)", or "T1" alone
// when it has no title (never empty parentheses).
func titled(task *config.Task) string {
	if task.Title == "" {
		return task.ID
	}
	return task.ID + " (" + task.Title + ")"
}

// inParens is " (s)", or "" for an empty s.
func inParens(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func (r *reporter) Stopping() { r.a.setState(state.Stopping, runner.Exit{}, "") }

// Waiting records that the CLI waits on a dialog (d nil: no longer): the
// agent's state is waiting, with the dialog's text, until it is gone.
func (r *reporter) Waiting(d *profile.Dialog) {
	a := r.a
	a.mu.Lock()
	switch {
	case d != nil && (a.state == state.Running || a.state == state.Waiting):
		a.state, a.dialog = state.Waiting, d.Text
	case d == nil && a.state == state.Waiting:
		a.state, a.dialog = state.Running, ""
	}
	a.mu.Unlock()
	a.d.Team.Publish()
}

func (r *reporter) Complete() {
	if !r.a.cfg.Lead {
		r.a.log.Warn("CHECKPOINT COMPLETE from an agent that is not a lead: ignored", "task", taskID(r.task))
		r.Event(event.CheckpointRejected, "reason", "CHECKPOINT COMPLETE from an agent that is not a lead (lead = true)")
		return
	}
	r.a.d.Team.TeamCheckpoint(protocol.CauseLead, "agent "+r.a.cfg.Name+" printed CHECKPOINT COMPLETE", r.a.cfg.Name)
}

// Paused: the parked session took its account's plan (zero: it went on).
// The agent's holds already say when it goes on (paused_until): state.json
// is written again.
func (r *reporter) Paused(time.Time) { r.a.d.Team.Publish() }

// Limit hands a sign of the usage limit the session saw to the agent's
// account, which parks every agent of it.
func (r *reporter) Limit(l session.LimitSign) { r.a.d.Accounts.Limit(r.a.cfg.Name, l) }

// LimitOver: the session's CLI went on by itself after its limit's reset.
func (r *reporter) LimitOver() { r.a.d.Accounts.Over(r.a.cfg.Name) }

func (r *reporter) Prompted() { r.a.prompted() }

// Gauge records the agent's context fill; past context_threshold it creates
// the signal file (once a generation): team checkpoint, handoff, fresh
// sessions.
func (r *reporter) Gauge(percent float64) {
	a, cfg := r.a, r.a.d.Config
	a.mu.Lock()
	a.context = percent
	a.mu.Unlock()
	if percent < float64(cfg.ContextThreshold) || !r.g.FireContext() {
		return
	}
	a.log.Warn("context threshold passed: asking for a team checkpoint", "percent", percent, "context_threshold", cfg.ContextThreshold, console.Printed, true)
	r.Event(event.ContextThreshold, "percent", percent, "threshold", cfg.ContextThreshold)
	r.Printf("WARNING: %s's context is %.0f%% full (context_threshold %d%%): team checkpoint\n", a.cfg.Name, percent, cfg.ContextThreshold)
	note := state.SignalNote(protocol.CauseContextThreshold,
		fmt.Sprintf("the context of %s is %.0f%% full (context_threshold %d%%)", a.cfg.Name, percent, cfg.ContextThreshold))
	if err := state.WriteSignal(cfg.StateDir, cfg.SignalFile, note); err != nil {
		a.log.Error("signal file not written", "error", err)
	}
}

// Record saves a checkpoint. A record that says the task is done
// (complete, awaiting-verification) completes it at once when the task has
// no verify; else it starts the verify off the session's loop (verify.go)
// and answers Verifying: the verdict comes to the session as an event.
func (r *reporter) Record(cp *protocol.Checkpoint) session.Verdict {
	a, d := r.a, r.a.d
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.completed {
		// The verify passed and completed the task while this answer was on
		// its way: a record now would reopen the task on disk.
		return session.Verdict{Done: true}
	}
	if drawnAgain(r.drawn, r.dead, cp) {
		a.log.Info("an answer recorded already, drawn again after the take-back: not recorded twice", "task", cp.TaskID,
			"progress", cp.ProgressPercent)
		return session.Verdict{Drawn: true}
	}
	if r.startedAt.IsZero() {
		// When work on the task began: the previous checkpoint's.
		r.startedAt = cp.StartedAt
		if prev, _ := d.Store.Load(a.cfg.Name, cp.TaskID); prev != nil && prev.RunID == d.RunID && !prev.StartedAt.IsZero() {
			r.startedAt = prev.StartedAt
		}
	}
	cp.StartedAt = r.startedAt
	cp.Git = r.gitInfo()
	rec := d.Recorder()
	if err := rec.Save(cp); err != nil {
		a.log.Error("checkpoint not saved: it does not count", "task", cp.TaskID, "error", err)
		r.Event(event.CheckpointRejected, "reason", "not saved: "+errors.Unwrap(err).Error())
		r.Printf("WARNING: checkpoint of %s on %s not saved (%v): it does not count; the agent is asked again\n", a.cfg.Name, cp.TaskID, errors.Unwrap(err))
		return session.Verdict{}
	}
	a.checkpointed(d.Clock.Now())
	a.remember(cp)
	if r.takenBack {
		r.drawn = append(r.drawn, cp)
	}
	rec.Announce(cp, "")
	d.Overlaps.seen(a, cp, r.dir, r.overlapRoot())
	done := cp.Status == protocol.StatusComplete || cp.Status == protocol.StatusAwaitingVerification
	if r.ts != nil && !done {
		r.a.d.Workspaces.goCommit(func() { r.commit(cp) }) // never delays the record
	}
	if cp.Trigger == protocol.TriggerTeamCheckpoint {
		select { // one a session; never blocks a record made after the wait
		case r.g.answered <- a.cfg.Name:
		default:
		}
	}
	if !done {
		return session.Verdict{Saved: true}
	}
	return r.startVerify(cp)
}

// Amend saves the latest record again, completed by optional lines that
// came late (the same checkpoint_id): checkpoint_amended, and the task's
// blockers as the record now names them. It reports whether it was saved.
func (r *reporter) Amend(cp *protocol.Checkpoint) bool {
	a, d := r.a, r.a.d
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.completed {
		return false // the task is complete: its record is archived
	}
	if err := d.Store.Save(cp); err != nil {
		a.log.Error("late lines of a checkpoint not saved", "task", cp.TaskID, "checkpoint_id", cp.CheckpointID, "error", err)
		r.Printf("WARNING: the late lines of %s's checkpoint on %s not saved: %v\n", a.cfg.Name, cp.TaskID, err)
		return false
	}
	if v := r.verifying; v != nil && v.CheckpointID == cp.CheckpointID {
		c := *cp
		r.verifying = &c // the record under verify, completed
	}
	for i := r.dead; i < len(r.drawn); i++ {
		if r.drawn[i].CheckpointID == cp.CheckpointID {
			c := *cp
			r.drawn[i] = &c // drawn again whole, it is this answer (drawnAgain)
		}
	}
	d.Queue.Progress(cp.TaskID, QueueCheckpoint(cp))
	r.Event(event.CheckpointAmended, "checkpoint_id", cp.CheckpointID, "blockers", cp.Blockers,
		"notes", cp.Notes, "resume_instructions", cp.ResumeInstructions, "phase", cp.Phase, "current_step", cp.CurrentStep,
		"subtasks", cp.Subtasks, "files_created", cp.FilesCreated, "errors", cp.Errors, "extra", cp.Extra)
	d.Team.Publish()
	return true
}

// gitInfo is where the session's work tree stands: a task's worktree read
// from the user's repository (never through the worktree's own .git, which
// the agent can point elsewhere), else the agent's dir.
func (r *reporter) gitInfo() *protocol.Git {
	if r.ts != nil {
		return r.ts.Worktree.Info()
	}
	return workspace.Info(r.dir)
}
