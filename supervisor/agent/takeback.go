package agent

import (
	"slices"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/session"
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
	Start     session.Starter
	Drop      func()
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

// lastOfSession is the agent's last record on task when session id made
// it (a session taken back: its screen may draw it again), else nil.
func (a *Agent) lastOfSession(task *config.Task, id string) *protocol.Checkpoint {
	if task == nil {
		return nil
	}
	prev, err := a.d.Store.Load(a.cfg.Name, task.ID)
	if err != nil || prev == nil || prev.RunID != a.d.RunID || prev.SessionID != id {
		return nil
	}
	return prev
}

// sameAnswer reports whether b gives what a gave: the same task, status,
// progress and lists.
func sameAnswer(a, b *protocol.Checkpoint) bool {
	return a.TaskID == b.TaskID && a.Status == b.Status && a.ProgressPercent == b.ProgressPercent &&
		slices.Equal(a.Completed, b.Completed) && slices.Equal(a.Remaining, b.Remaining) &&
		slices.Equal(a.FilesModified, b.FilesModified)
}
