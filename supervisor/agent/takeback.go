package agent

import (
	"slices"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/session"
	"github.com/wardenhq/warden/supervisor/state"
)

// TakeBack is a session of an earlier warden whose process the team's
// holder still holds (holder = true): the agent's first session takes it
// back instead of starting one — the same task, attempt and session_id,
// no first prompt typed; Start attaches to the held process (one that
// exited meanwhile ends at once: a crash of that session, restarted by the
// agent's policy). Drop ends the held process when it is not taken back.
type TakeBack struct {
	Task      string
	Attempt   int
	SessionID string
	Pid       int
	Since     time.Time // its last checkpoint: its clocks go on from there
	// Requested is when the dead warden typed the checkpoint request the
	// session's turn is on (zero: none awaited): its answer is awaited,
	// no request typed into that turn.
	Requested time.Time
	// PausedUntil is when its account's park planned to end, when the
	// dead warden had parked it (state.json): the park is carried over.
	PausedUntil time.Time
	Start       session.Starter
	Drop        func()
}

// SetTakeBack gives the agent a session to take back in its next Run.
// Call it before the team runs.
func (a *Agent) SetTakeBack(tb *TakeBack) {
	a.mu.Lock()
	a.takeback = tb
	a.mu.Unlock()
}

// takeBackTask is the task of the session the agent takes back, marked
// running for it, or nil (none; or its task is no longer the agent's to
// take: then the held process is dropped).
func (a *Agent) takeBackTask(g *Generation) *config.Task {
	a.mu.Lock()
	tb := a.takeback
	a.mu.Unlock()
	if tb == nil {
		return nil
	}
	release, ok := g.MayStart()
	if ok {
		defer release()
	}
	var task *config.Task
	if ok {
		task = a.d.Queue.TakeOwn(tb.Task, a.cfg.Name)
	}
	if task == nil {
		a.log.Warn("a held session not taken back: its task is not open for the agent", "task", tb.Task, "pid", tb.Pid)
		a.dropTakeBack()
		return nil
	}
	a.d.Events.Emit(event.TaskDispatched, a.cfg.Name, task.ID, "title", task.Title, "taken_back", true)
	if until := tb.PausedUntil; until.After(a.d.Clock.Now()) && a.d.Accounts != nil {
		a.d.Accounts.Carry(a.cfg.Name, until)
	}
	return task
}

// pendingTakeBack is the session to take back on task, or nil.
func (a *Agent) pendingTakeBack(task *config.Task) *TakeBack {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.takeback == nil || task == nil || a.takeback.Task != task.ID {
		return nil
	}
	return a.takeback
}

// takeBackNow hands the session to take back on task to the session that
// starts now, once.
func (a *Agent) takeBackNow(task *config.Task) *TakeBack {
	tb := a.pendingTakeBack(task)
	if tb != nil {
		a.mu.Lock()
		a.takeback = nil
		a.mu.Unlock()
	}
	return tb
}

// dropTakeBack ends a held process that is not taken back.
func (a *Agent) dropTakeBack() {
	a.mu.Lock()
	tb := a.takeback
	a.takeback = nil
	a.mu.Unlock()
	if tb != nil && tb.Drop != nil {
		tb.Drop()
	}
}

// recordsOfSession are the records session id made on task, as the
// history keeps them (its retention may have dropped the oldest), and its
// latest: a session taken back may draw them again on its screen.
func (a *Agent) recordsOfSession(task *config.Task, id string) []*protocol.Checkpoint {
	if task == nil {
		return nil
	}
	var out []*protocol.Checkpoint
	if prev, err := a.d.Store.Load(a.cfg.Name, task.ID); err == nil && prev != nil && prev.RunID == a.d.RunID && prev.SessionID == id {
		out = append(out, prev)
	}
	entries, err := state.ReadHistory(a.d.Dir.Root, task.ID)
	if err != nil {
		a.log.Warn("the history of a session taken back not read: an answer it draws again may be recorded again", "error", err)
	}
	for _, e := range entries {
		if e.Run != a.d.RunID || e.Agent != a.cfg.Name {
			continue
		}
		if cp, err := a.d.Store.Record(e.ID); err == nil && cp.SessionID == id {
			out = append(out, cp)
		}
	}
	return out
}

// drawnAgain reports whether cp gives what one of recs gave.
func drawnAgain(recs []*protocol.Checkpoint, cp *protocol.Checkpoint) bool {
	for _, r := range recs {
		if sameAnswer(r, cp) {
			return true
		}
	}
	return false
}

// sameAnswer reports whether b gives what a gave: the same task, status,
// progress and lists.
func sameAnswer(a, b *protocol.Checkpoint) bool {
	return a.TaskID == b.TaskID && a.Status == b.Status && a.ProgressPercent == b.ProgressPercent &&
		slices.Equal(a.Completed, b.Completed) && slices.Equal(a.Remaining, b.Remaining) &&
		slices.Equal(a.FilesModified, b.FilesModified)
}
