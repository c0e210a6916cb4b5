// Package control is the running team's control socket (state_dir/
// control.sock): `warden ps`, `screen`, `attach`, `send`, `restart`, `stop`
// and the dashboard page talk to the warden that runs a team through it.
//
// The wire: the client sends one JSON Request on a line and reads one JSON
// Response on a line. attach then carries frames both ways (see frame.go);
// watch carries one JSON Update a line; stop holds the connection until the
// warden is done. Only processes of warden's own user may connect
// (SO_PEERCRED).
package control

import (
	"encoding/json"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/face"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// Commands.
const (
	CmdPS      = "ps"
	CmdScreen  = "screen"
	CmdAttach  = "attach"
	CmdSend    = "send"
	CmdRestart = "restart"
	CmdStop    = "stop"
	CmdWatch   = "watch"
	CmdUpgrade = "upgrade"
)

// Request is one command.
type Request struct {
	Cmd   string `json:"cmd"`
	Agent string `json:"agent,omitempty"`
	// send: the text, typed even into a dialog with Force; Wait bounds the
	// wait for a turn boundary.
	Text  string        `json:"text,omitempty"`
	Force bool          `json:"force,omitempty"`
	Wait  time.Duration `json:"wait,omitempty"`
	// attach: pass the viewer's keystrokes.
	RW bool `json:"rw,omitempty"`
	// stop: skip the last checkpoint requests.
	Now bool `json:"now,omitempty"`
	// watch: include the agents' screens.
	Screens bool `json:"screens,omitempty"`
	// resume: the budget from now on, and who asks (resume.go).
	Resume *ResumeRequest `json:"resume,omitempty"`
	// answer: a person's answer to a dialog (answer.go).
	Answer *AnswerRequest `json:"answer,omitempty"`
	// upgrade: the new binary's path ("": the file now at the path the
	// running warden was started from).
	Binary string `json:"binary,omitempty"`
	// For names the processes the request is made for (the page's client,
	// peers.go): refused when the team refuses one of them.
	For []int `json:"for,omitempty"`
}

// Response answers a Request; Error is set when OK is not.
type Response struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	// Refused: refused for who asks (the caller, or a process of For).
	Refused  bool             `json:"refused,omitempty"`
	PS       *PS              `json:"ps,omitempty"`
	Screen   *Screen          `json:"screen,omitempty"`
	Send     *face.SendResult `json:"send,omitempty"`
	Restart  *Restarted       `json:"restart,omitempty"`
	Attach   *Attached        `json:"attach,omitempty"`
	Resume   *Resumed         `json:"resume,omitempty"`
	Answered *Answered        `json:"answered,omitempty"`
	Upgrade  *Upgrade         `json:"upgrade,omitempty"`
}

// PS is the running team: its agents and tasks (warden ps).
type PS struct {
	Team      string    `json:"team"`
	Pid       int       `json:"pid"`
	StateDir  string    `json:"state_dir"`
	StartedAt time.Time `json:"started_at"`
	// Now is the team's clock when the answer was made: ages are from it.
	Now time.Time `json:"now"`
	// RunID names the run; CarriedOn says each time it was carried on
	// (by a restarted supervisor, a rerun) and from which checkpoints.
	RunID     string          `json:"run_id,omitempty"`
	CarriedOn []state.CarryOn `json:"carried_on,omitempty"`
	// Stopping: a team checkpoint (or stop) runs.
	Stopping bool           `json:"stopping,omitempty"`
	Agents   []Agent        `json:"agents"`
	Tasks    []queue.Status `json:"tasks"`
	// Usage is what the run spent; Budget the team's budget and where the
	// run stands with it (nil: none set).
	Usage  *protocol.Usage `json:"usage,omitempty"`
	Budget *state.Budget   `json:"budget,omitempty"`
	// Memory is max_running, memory_floor and memory_max at work and each
	// CLI's footprint (nil: the team file sets none of them).
	Memory *state.MemoryStatus `json:"memory,omitempty"`
	// Overlaps are the open tasks whose latest records name a common file.
	Overlaps []state.Overlap `json:"overlaps,omitempty"`
	// Land is where the run's own land stands (land_by; nil: none).
	Land *state.Land `json:"land,omitempty"`
}

// Agent is one agent in PS: its status (state, task, attempt, pid, the
// dialog it waits on…) and what its session is at.
type Agent struct {
	state.AgentStatus
	Profile string `json:"profile"`
	// SessionStarted is when its process started (uptime).
	SessionStarted time.Time `json:"session_started,omitzero"`
	// NextRequest is when the next checkpoint request is due; RequestedAt,
	// when set, is when the request that awaits its answer was typed.
	NextRequest time.Time `json:"next_request,omitzero"`
	RequestedAt time.Time `json:"requested_at,omitzero"`
	Viewers     int       `json:"viewers,omitempty"`
	// OutputSeq counts its session's output bytes: its screen changed when
	// this moved.
	OutputSeq uint64 `json:"output_seq,omitempty"`
	// Checkpoint is its last checkpoint in this run.
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	// Question is what the dialog it waits on asks, without its choices;
	// DialogID names that dialog (warden answer --dialog).
	Question string `json:"question,omitempty"`
	DialogID string `json:"dialog_id,omitempty"`
}

// Checkpoint is what PS shows of an agent's last checkpoint.
type Checkpoint struct {
	ID        string    `json:"checkpoint_id"`
	Task      string    `json:"task_id"`
	Status    string    `json:"status"`
	Progress  int       `json:"progress_percent"`
	Completed []string  `json:"completed,omitempty"`
	Remaining []string  `json:"remaining,omitempty"`
	Blockers  []string  `json:"blockers,omitempty"`
	At        time.Time `json:"updated_at"`
}

// Screen is an agent's screen as text (warden screen).
type Screen struct {
	Agent string   `json:"agent"`
	Rows  []string `json:"rows"`
	// Plain: the agent is line-oriented; Rows are its last lines.
	Plain bool `json:"plain,omitempty"`
	// Seq counts the agent's output bytes; an unchanged Seq, an unchanged
	// screen.
	Seq uint64 `json:"seq"`
}

// Restarted says what warden restart did.
type Restarted struct {
	Agent string `json:"agent"`
	// Checkpoint is the checkpoint the new session resumes from ("" none).
	Checkpoint string `json:"checkpoint_id,omitempty"`
	Pid        int    `json:"pid,omitempty"`
	Session    string `json:"session_id,omitempty"`
}

// Attached starts an attach stream.
type Attached struct {
	Agent      string `json:"agent"`
	Rows, Cols int
	RW         bool `json:"rw"`
}

// Update is one line of a watch stream: the team's state when it changed,
// an event as it was written, or an agent's screen when it changed.
type Update struct {
	PS     *PS             `json:"ps,omitempty"`
	Event  json.RawMessage `json:"event,omitempty"`
	Screen *Screen         `json:"screen,omitempty"`
}
