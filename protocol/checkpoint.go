package protocol

import (
	"encoding/json"
	"strings"
	"time"
)

// Triggers: why a checkpoint was taken (the record's trigger field).
const (
	TriggerRequest        = "request"
	TriggerUnasked        = "unasked"
	TriggerTeamCheckpoint = "team_checkpoint"
	TriggerDispatch       = "dispatch" // warden's record when a session starts on the task
)

// Causes of a team checkpoint (the cause of a record of trigger
// team_checkpoint).
const (
	CauseUserInterrupt    = "user_interrupt"    // Ctrl-C or SIGTERM
	CauseManual           = "manual"            // warden checkpoint
	CauseContextThreshold = "context_threshold" // an agent's context gauge
	CauseSignalFile       = "signal_file"       // the signal file, written by anyone else
	CauseLead             = "lead"              // a team lead printed CHECKPOINT COMPLETE
	CauseBudget           = "budget"            // max_runtime, stop_at, max_cost or max_tokens
	CauseUsageLimit       = "usage_limit"       // an account at its usage limit, with on_limit = "checkpoint-exit"
	CauseWardenFailed     = "warden_failed"     // one of warden's edges failed: its hook socket, control socket or signal-file watch
)

// Git is where the agent's work tree stood when the checkpoint was taken.
type Git struct {
	Branch string `json:"branch"`
	Head   string `json:"head"`
	// Commit is warden's commit of the work this checkpoint describes
	// (worktree mode), made right after the record.
	Commit string `json:"commit,omitempty"`
}

// Subtasks is a block's `Subtasks:` line: a count ("19/29") or a checklist
// of "[x]"/"[ ]" items, whose Done and Total are then counted from Items.
type Subtasks struct {
	Done  int       `json:"done"`
	Total int       `json:"total"`
	Items []Subtask `json:"items,omitempty"`
}

// Subtask is one item of a Subtasks checklist.
type Subtask struct {
	Text string `json:"text"`
	Done bool   `json:"done"`
}

// ErrorItem is one item of a block's `Errors:` list: the message, and where
// it happened when the item starts with a location ("a.go:12: undefined x").
type ErrorItem struct {
	Message string `json:"message"`
	Where   string `json:"where,omitempty"`
}

// RecordVersion is the schema version of the checkpoint records this warden
// writes (a record's version field). A record written before the field
// existed has none, and reads as version 1: today's format is that one.
const RecordVersion = 1

// Checkpoint is one checkpoint record (DESIGN §5): a Block with what warden
// knows around it — who answered, in which session, why and when. It is the
// protocol's data; the supervisor stores it and the handoff reads it.
type Checkpoint struct {
	// Version is the record's schema version (RecordVersion when written;
	// an older record without it reads as 1).
	Version            int      `json:"version"`
	CheckpointID       string   `json:"checkpoint_id"`
	RunID              string   `json:"run_id,omitempty"`
	Agent              string   `json:"agent"`
	TaskID             string   `json:"task_id"`
	TaskTitle          string   `json:"task_title"`
	SessionID          string   `json:"session_id"`
	Attempt            int      `json:"attempt"`
	Trigger            string   `json:"trigger"`
	Cause              string   `json:"cause,omitempty"`
	Status             string   `json:"status"`
	ProgressPercent    int      `json:"progress_percent"`
	Completed          []string `json:"completed"`
	Remaining          []string `json:"remaining"`
	FilesModified      []string `json:"files_modified"`
	Blockers           []string `json:"blockers"`
	Notes              string   `json:"notes"`
	ResumeInstructions string   `json:"resume_instructions"`
	// The seeds' optional lines (DESIGN §4), and any other Key: value line
	// of the block, by its key as written.
	Phase                  string            `json:"phase,omitempty"`
	CurrentStep            string            `json:"current_step,omitempty"`
	Subtasks               *Subtasks         `json:"subtasks,omitempty"`
	FilesCreated           []string          `json:"files_created,omitempty"`
	Errors                 []ErrorItem       `json:"errors,omitempty"`
	Extra                  map[string]string `json:"extra,omitempty"`
	Resumable              bool              `json:"resumable"`
	StartedAt              time.Time         `json:"started_at"`
	UpdatedAt              time.Time         `json:"updated_at"`
	CompletedAt            *time.Time        `json:"completed_at"`
	NextCheckpointExpected *time.Time        `json:"next_checkpoint_expected"`
	Git                    *Git              `json:"git,omitempty"`
	// Usage is what the record's session spent so far (its CLI's own
	// files, read at the record and again at the session's end), where
	// warden can read it.
	Usage *Usage `json:"usage,omitempty"`
	// Mac is warden's seal on the record (issue 33): "record:HEX" on every
	// record it writes, "complete:HEX" on the archive it makes of a record
	// whose task's verify passed — an HMAC-SHA256 over the record's other
	// fields with a key kept outside the state dir (supervisor/state
	// seal.go). A record without one was written by an older warden, or
	// not by warden.
	Mac string `json:"mac,omitempty"`
}

// UnmarshalJSON reads a record; one without a version (written before the
// field existed) is version 1.
func (cp *Checkpoint) UnmarshalJSON(data []byte) error {
	type fields Checkpoint // its own methods left behind: no recursion
	var f fields
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	*cp = Checkpoint(f)
	if cp.Version == 0 {
		cp.Version = 1
	}
	return nil
}

// Record is the checkpoint of block b: the block's fields, with the fields
// that are warden's (agent, session, trigger, times) left for the caller.
// The agent's text is made Plain: no control character reaches the record,
// the events, STATUS.md or the handoff.
//
// A record is resumable unless its task is reported complete (then a
// session carrying it on is there to have it verified, not to work on it)
// or the agent says it cannot be resumed (a "Resumable: no" line).
func (b Block) Record() Checkpoint {
	cp := Checkpoint{TaskID: Plain(b.Task), Status: Plain(b.Status), ProgressPercent: b.Progress,
		Completed: plainList(b.Completed), Remaining: plainList(b.Remaining), FilesModified: plainList(b.FilesModified),
		Resumable: b.Status != StatusComplete && !saysNo(b.Extra["Resumable"])}
	cp.SetOptional(b)
	return cp
}

// SaysNotResumable reports whether the agent said the record cannot be
// resumed from (a "Resumable: no" line): a fresh session starts its task
// from its prompt. A record of a task reported done (complete, or
// awaiting-verification with Resumable: no) is not resumable either, but
// a session carries it on to have the task verified: it does not count.
func (cp *Checkpoint) SaysNotResumable() bool {
	return !cp.Resumable && cp.Status != StatusComplete && cp.Status != StatusAwaitingVerification
}

// saysNo reports whether an answer's value means no.
func saysNo(v string) bool {
	switch strings.ToLower(strings.TrimRight(strings.TrimSpace(v), ".")) {
	case "no", "false", "n":
		return true
	}
	return false
}

// SetOptional sets the record's optional fields (Blockers, Notes, Resume,
// the seeds' lines, Extra) to block b's, made Plain: what an amendment
// (Block.Amends: optional lines that came late) changes in the record it
// completes.
func (cp *Checkpoint) SetOptional(b Block) {
	cp.Blockers, cp.Notes, cp.ResumeInstructions = plainList(b.Blockers), Plain(b.Notes), Plain(b.Resume)
	cp.Phase, cp.CurrentStep, cp.FilesCreated = Plain(b.Phase), Plain(b.CurrentStep), plainList(b.FilesCreated)
	cp.Subtasks = nil
	if s := b.Subtasks; s != nil {
		cp.Subtasks = &Subtasks{Done: s.Done, Total: s.Total}
		for _, it := range s.Items {
			cp.Subtasks.Items = append(cp.Subtasks.Items, Subtask{Text: Plain(it.Text), Done: it.Done})
		}
	}
	cp.Errors = nil
	for _, e := range b.Errors {
		cp.Errors = append(cp.Errors, ErrorItem{Message: Plain(e.Message), Where: Plain(e.Where)})
	}
	cp.Extra = nil
	if len(b.Extra) > 0 {
		cp.Extra = make(map[string]string, len(b.Extra))
		for k, v := range b.Extra {
			cp.Extra[Plain(k)] = Plain(v)
		}
	}
}
