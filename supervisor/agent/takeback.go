package agent

import (
	"slices"
	"sync"
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
	// settled is closed once the session is taken back (its process
	// attached, what the holder kept read) or dropped (Settled).
	settled     chan struct{}
	settledOnce sync.Once
}

// settle closes settled, once.
func (tb *TakeBack) settle() { tb.settledOnce.Do(func() { close(tb.settled) }) }

// TakeBackSettled is closed once the session the agent was given to take
// back is taken back — its process attached, what the holder kept read —
// or dropped; nil when it was given none. A team checkpoint asked for
// before (a signal file a dead warden left) waits for it: begun first, it
// would drop the held sessions unread, and the answers the holder kept for
// them with them.
func (a *Agent) TakeBackSettled() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tbSettled == nil {
		return nil
	}
	return a.tbSettled
}

// SetTakeBack gives the agent a session to take back in its next Run.
// Call it before the team runs.
func (a *Agent) SetTakeBack(tb *TakeBack) {
	tb.settled = make(chan struct{})
	a.mu.Lock()
	a.takeback, a.tbSettled, a.holding = tb, tb.settled, tb
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
	a.takeback, a.holding = nil, nil
	a.mu.Unlock()
	if tb != nil && tb.Drop != nil {
		tb.Drop()
	}
	if tb != nil {
		tb.settle()
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
	// A dispatch record is warden's own, the last answer's fields copied
	// when the session began: never drawn by the session, so never what it
	// draws again (its first answer may give the same progress and lists).
	if prev, err := a.d.Store.Load(a.cfg.Name, task.ID); err == nil && prev != nil && prev.RunID == a.d.RunID && prev.SessionID == id &&
		prev.Trigger != protocol.TriggerDispatch {
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
		if cp, err := a.d.Store.Record(e.ID); err == nil && cp.SessionID == id && cp.Trigger != protocol.TriggerDispatch {
			out = append(out, cp)
		}
	}
	return out
}

// drawnAgain reports whether cp gives what one of recs gave; recs[:dead]
// are the dead warden's records, which may lack their late lines (a
// record of this warden's lacks them only until it is amended: one that
// was not, at 100 % with its notes late, made every later answer at 100 %
// the same answer, not recorded).
func drawnAgain(recs []*protocol.Checkpoint, dead int, cp *protocol.Checkpoint) bool {
	for i, r := range recs {
		if sameAnswer(r, cp) && (i < dead || sameAnswer(cp, r)) { // this warden's: the same both ways
			return true
		}
	}
	return false
}

// sameAnswer reports whether b, drawn again, gives what record a gave: the
// same task, status, progress, lists, notes and lines of its own (two
// answers that differ only in their notes are two answers) — where a may
// lack the late optional lines b has: a record saved before they came, and
// not amended because its warden was killed, is the same answer read whole
// again from the agent's log (replay.go).
func sameAnswer(a, b *protocol.Checkpoint) bool {
	return a.TaskID == b.TaskID && a.Status == b.Status && a.ProgressPercent == b.ProgressPercent &&
		slices.Equal(a.Completed, b.Completed) && slices.Equal(a.Remaining, b.Remaining) &&
		slices.Equal(a.FilesModified, b.FilesModified) && (a.Notes == b.Notes || a.Notes == "") && subset(a.Extra, b.Extra)
}

// subset reports whether every line of a is in b, the same.
func subset(a, b map[string]string) bool {
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
