package protocol

import "time"

// Origin is what warden knows around an answer, beside the block itself:
// who gave it, in which session, why and when (DESIGN §5's fields that are
// warden's). Every record — of an answer read off a screen or a hook, of a
// spooled answer, and warden's own dispatch record — gets its identity from
// an Origin, so that a record id is spelled in one place.
type Origin struct {
	Agent     string
	TaskTitle string
	SessionID string
	Attempt   int
	Trigger   string // Trigger*
	Cause     string // Cause*, for a team checkpoint's records
	// StartedAt is when work on the task began; At when the record is made.
	StartedAt, At time.Time
	// Next is how long after At the next checkpoint is expected (0: none said).
	Next time.Duration
}

// RecordID is the id of agent's record of task made at: unique per agent
// and task, and sorted by time.
func RecordID(agent, task string, at time.Time) string {
	return agent + "-" + task + "-" + at.UTC().Format("20060102T150405.000000000Z")
}

// NewRecord is the record of block b (its text made Plain) from o.
func NewRecord(b Block, o Origin) Checkpoint {
	cp := b.Record()
	o.Stamp(&cp)
	if cp.Status == StatusComplete {
		at := o.At.UTC()
		cp.CompletedAt = &at
	}
	return cp
}

// Stamp gives cp o's identity: today's record version, a new id, the agent, session, attempt,
// trigger and cause, the times; what cp says of the work stays. Warden's
// dispatch record is an earlier record stamped anew.
func (o Origin) Stamp(cp *Checkpoint) {
	at := o.At.UTC()
	cp.Version = RecordVersion
	cp.CheckpointID = RecordID(o.Agent, cp.TaskID, at)
	cp.Agent, cp.TaskTitle, cp.SessionID, cp.Attempt = o.Agent, o.TaskTitle, o.SessionID, o.Attempt
	cp.Trigger, cp.Cause = o.Trigger, o.Cause
	cp.StartedAt, cp.UpdatedAt, cp.CompletedAt, cp.NextCheckpointExpected = o.StartedAt.UTC(), at, nil, nil
	if o.Next > 0 {
		next := at.Add(o.Next)
		cp.NextCheckpointExpected = &next
	}
}
