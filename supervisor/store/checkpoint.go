// Package store keeps checkpoints on disk (DESIGN §5): the latest one per
// agent and task, the last ten before each overwrite in backups/, and the
// archive of a completed task. Every write is atomic; a checkpoint file that
// does not parse is restored from its newest good backup.
package store

import "time"

// Triggers: why a checkpoint was taken.
const (
	TriggerRequest        = "request"
	TriggerUnasked        = "unasked"
	TriggerTeamCheckpoint = "team_checkpoint"
	TriggerUserInterrupt  = "user_interrupt"
	TriggerManual         = "manual"
)

// Git is where the agent's work tree stood.
type Git struct {
	Branch string `json:"branch"`
	Head   string `json:"head"`
}

// Checkpoint is one record, as written to checkpoints/{agent}-{task}.json.
type Checkpoint struct {
	CheckpointID           string     `json:"checkpoint_id"`
	Agent                  string     `json:"agent"`
	TaskID                 string     `json:"task_id"`
	TaskTitle              string     `json:"task_title"`
	SessionID              string     `json:"session_id"`
	Attempt                int        `json:"attempt"`
	Trigger                string     `json:"trigger"`
	Status                 string     `json:"status"`
	ProgressPercent        int        `json:"progress_percent"`
	Completed              []string   `json:"completed"`
	Remaining              []string   `json:"remaining"`
	FilesModified          []string   `json:"files_modified"`
	Blockers               []string   `json:"blockers"`
	Notes                  string     `json:"notes"`
	ResumeInstructions     string     `json:"resume_instructions"`
	Resumable              bool       `json:"resumable"`
	StartedAt              time.Time  `json:"started_at"`
	UpdatedAt              time.Time  `json:"updated_at"`
	CompletedAt            *time.Time `json:"completed_at"`
	NextCheckpointExpected *time.Time `json:"next_checkpoint_expected"`
	Git                    *Git       `json:"git,omitempty"`
}
