package session

import (
	"fmt"
	"slices"
	"time"

	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/event"
)

// idleClock is the monitor's idle watch (idle_after, idle_nudges): an
// agent that answers every checkpoint request with the same block — the
// same progress, the same Completed list, the same status — and sits at
// its prompt between them (it ended its turn to ask "shall I go on?") is
// never stale, for it answers; its checkpoints have stopped moving. Once
// they have stood still for after, at a turn boundary, warden types it one
// line (a nudge), at most nudges times a task; after the last, another
// after with nothing moving, a person is told (agent_idle), once, and the
// agent is left alone. Nothing of it runs while a request is awaited,
// while the agent waits on a dialog or is parked (monitor.next returns
// before), or while its last checkpoint said it is blocked (it has said
// why it does not go on).
type idleClock struct {
	after  time.Duration // idle_after; 0: no watch
	nudges int           // idle_nudges: the nudges a task gets
	// movedAt: when the checkpoints last moved (zero: not since the start).
	movedAt time.Time
	// nudged: the nudges typed to this session's task; nudgedAt the last;
	// before the one before it (a nudge put off is taken back).
	nudged           int
	nudgedAt, before time.Time
	told             bool      // agent_idle said since the checkpoints last moved
	retryAt          time.Time // a nudge put off (no turn boundary): not before then
}

// moved notes that the checkpoints moved at now: a record whose status,
// progress or Completed list differs from the last one's (or the first).
// The nudges spent stay spent: the cap is the task's.
func (m *monitor) moved(now time.Time) {
	m.idle.movedAt, m.idle.told, m.idle.retryAt = now, false, time.Time{}
}

// idleDue is when a nudge (or agent_idle) is due, given the turn boundary
// quietAt; zero when none is.
func (m *monitor) idleDue(quietAt time.Time) time.Time {
	i := &m.idle
	if i.after <= 0 || i.told || m.awaiting || m.blocked || !m.correctAt.IsZero() {
		return time.Time{}
	}
	if m.lastCheckpoint.IsZero() || m.warned || !m.stuckAt.IsZero() {
		// No answer yet, or no longer answering: the stale alarms' case.
		return time.Time{}
	}
	from := latest(m.start, i.movedAt, m.resumedAt, i.nudgedAt)
	return latest(from.Add(i.after), quietAt, i.retryAt)
}

// idleNext returns actNudge or actIdle when one is due at now, and marks it
// done (idleNotYet takes it back).
func (m *monitor) idleNext(now, quietAt time.Time) (action, bool) {
	due := m.idleDue(quietAt)
	if due.IsZero() || now.Before(due) {
		return actNone, false
	}
	i := &m.idle
	if i.nudged < i.nudges {
		i.nudged++
		i.before, i.nudgedAt = i.nudgedAt, now
		// The agent gets checkpoint_timeout to take the nudge up before a
		// request is typed after it.
		m.nextRequest = latest(m.nextRequest, now.Add(m.timeout))
		return actNudge, true
	}
	i.told = true
	return actIdle, true
}

// idleNotYet takes back act, due at now: the screen shows no turn
// boundary (the CLI works: it is not idle). It is looked at again after
// turnQuiet.
func (m *monitor) idleNotYet(act action, now time.Time) {
	i := &m.idle
	if act == actNudge {
		i.nudged--
		i.nudgedAt = i.before
	} else {
		i.told = false
	}
	i.retryAt = now.Add(max(m.turnQuiet, time.Second))
}

// idleFor is how long the checkpoints have stood still at now.
func (m *monitor) idleFor(now time.Time) time.Duration {
	return now.Sub(latest(m.start, m.idle.movedAt)).Round(time.Second)
}

// moves reports whether record b moves the checkpoints on from the
// session's latest one: its first, or a new status, progress or Completed
// list. A task change is a new session (and its first record).
func (s *Session) moves(b protocol.Block) bool {
	l := s.latest.block
	return s.latest.cp == nil || l.Task != b.Task || l.Status != b.Status || l.Progress != b.Progress ||
		!slices.Equal(l.Completed, b.Completed)
}

// idleAct does act at a turn boundary: types the nudge (through the
// typist, which never types into a dialog or a parked agent), or tells a
// person the agent is idle.
func (s *Session) idleAct(act action) {
	now := s.cfg.Clock.Now()
	m, name, task := s.mon, s.cfg.Agent, s.cfg.Task.ID
	idleFor, progress := m.idleFor(now), -1
	if s.latest.cp != nil {
		progress = s.latest.block.Progress
	}
	if act == actNudge {
		s.log.Info("agent idle at its prompt: nudged", "task", task, "idle_for", idleFor, "nudge", m.idle.nudged, "of", m.idle.nudges)
		s.r.Printf("WARNING: %s sits at its prompt on %s, its checkpoints unmoved for %s%s: nudged (%d of %d)\n",
			name, task, idleFor, atProgress(progress), m.idle.nudged, m.idle.nudges)
		// agent_nudged is written when it is typed (typing.go).
		s.input.queue <- typed{text: nudgeText(task, idleFor), nudge: true, epoch: s.park.epoch.Load(),
			kv: []any{"idle_for", idleFor.String(), "nudge", m.idle.nudged, "of", m.idle.nudges, "progress", progress, "session_id", s.id}}
		return
	}
	reason := fmt.Sprintf("at its prompt on %s, its checkpoints unmoved for %s%s", task, idleFor, atProgress(progress))
	if n := m.idle.nudged; n > 0 {
		reason += fmt.Sprintf(", after %d nudge%s: it needs a person", n, map[bool]string{true: "", false: "s"}[n == 1])
	} else {
		reason += ": it needs a person"
	}
	s.log.Warn("agent idle: "+reason, "task", task, console.Printed, true)
	s.r.Event(event.AgentIdle, "idle_for", idleFor.String(), "nudges", m.idle.nudged, "progress", progress,
		"reason", reason, "session_id", s.id)
	s.r.Printf("WARNING: %s is idle %s (warden send %s, or warden attach %s)\n", name, reason, name, name)
}

// atProgress is " (at 40%)", or "" before any record.
func atProgress(p int) string {
	if p < 0 {
		return ""
	}
	return fmt.Sprintf(" (at %d%%)", p)
}

// nudgeText is the line typed to an idle agent.
func nudgeText(task string, d time.Duration) string {
	return fmt.Sprintf("warden: your checkpoints have not moved for %s and you are at your prompt. Carry on with task %s; "+
		"if it is done or you are blocked, say so in a checkpoint (Status: complete or blocked).", d, task)
}
