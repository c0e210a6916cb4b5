package agent

import (
	"fmt"
	"strings"
	"time"

	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/event"
)

// Recorder is the one way an answer's record reaches the disk and those
// who follow the team, in this order: saved (the latest file, its backup,
// the history) → the task's progress in the queue (task_blocked when it
// turns blocked) → checkpoint_received → the CHECKPOINT line on stdout →
// state.json, STATUS.md and the page (publish). The records of answers
// read off a screen or a hook (reporter.Record) and of answers spooled
// while warden was down (the team's replay, when it carries a run on) go
// through it. Warden's own dispatch record is only saved: it is no answer.
type Recorder struct{ d *Deps }

// Recorder is the team's recorder.
func (d *Deps) Recorder() Recorder { return Recorder{d: d} }

// Save is the first step: cp on disk. An error means it is not, and does
// not count: the caller says so, and nothing is announced.
func (r Recorder) Save(cp *protocol.Checkpoint) error {
	d := r.d
	if err := d.Store.Save(cp); err != nil {
		return fmt.Errorf("checkpoint %s of %s on %s not saved: %w", cp.CheckpointID, cp.Agent, cp.TaskID, err)
	}
	if d.OnRecord != nil {
		d.OnRecord(cp, time.Now()) // a benchmark's wall clock
	}
	return nil
}

// Announce is the rest, for a record Save put on disk (and whatever its
// caller keeps of it in between — the agent's last record and checkpoint
// time, which the publish shows): the queue, the events, stdout (note, when
// not empty, added to the line), the publish.
func (r Recorder) Announce(cp *protocol.Checkpoint, note string) {
	d := r.d
	if d.Queue.Progress(cp.TaskID, QueueCheckpoint(cp)) {
		why := strings.Join(cp.Blockers, "; ")
		if why == "" {
			why = "no blockers named"
		}
		d.Log.Warn("task blocked", "agent", cp.Agent, "task", cp.TaskID, "blockers", why, console.Printed, true)
		d.Events.Emit(event.TaskBlocked, cp.Agent, cp.TaskID, "blockers", cp.Blockers, "checkpoint_id", cp.CheckpointID)
		d.Team.Printf(cp.Agent, "WARNING: %s is blocked: %s\n", cp.TaskID, why)
	}
	d.Events.Emit(event.CheckpointReceived, cp.Agent, cp.TaskID, "checkpoint_id", cp.CheckpointID, "status", cp.Status,
		"progress", cp.ProgressPercent, "trigger", cp.Trigger, "session_id", cp.SessionID)
	if note != "" {
		note = " " + note
	}
	d.Team.Printf(cp.Agent, "CHECKPOINT: %s - %s (%d%%)%s\n", cp.TaskID, cp.Status, cp.ProgressPercent, note)
	d.Team.Publish()
}
