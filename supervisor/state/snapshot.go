package state

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/wardenhq/warden/internal/safefile"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/queue"
)

// AgentState is where an agent's process stands (DESIGN §6).
type AgentState string

// Agent states.
const (
	Idle      AgentState = "idle"      // waiting for a task
	Admission AgentState = "admission" // it has its task and waits its turn to start (max_running, memory_floor)
	Starting  AgentState = "starting"
	Running   AgentState = "running"
	Waiting   AgentState = "waiting" // a dialog waits for a person
	Backoff   AgentState = "backoff"
	Stopping  AgentState = "stopping"
	Stopped   AgentState = "stopped"
	Exited    AgentState = "exited"
	Failed    AgentState = "failed"
)

// AgentStatus is one agent's state as the dashboard and the result see it.
type AgentStatus struct {
	Name  string     `json:"name"`
	State AgentState `json:"state"`
	Pid   int        `json:"pid,omitempty"`
	// Session is the session_id of its last process: a run carried on
	// takes that session back when the team's holder still holds it.
	Session string `json:"session_id,omitempty"`
	Attempt int    `json:"attempt"`
	Exit    string `json:"exit,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Task    string `json:"task,omitempty"`
	// ExitCode is the last process's exit code (128+N when killed by signal N).
	ExitCode int `json:"exit_code"`
	// Context is the agent's context gauge in percent, where its CLI reports one.
	Context float64 `json:"context_percent,omitempty"`
	// PausedUntil: waiting for a usage limit to reset.
	PausedUntil time.Time `json:"paused_until,omitzero"`
	// Dialog is the text of the dialog the agent waits on (state waiting).
	Dialog string `json:"dialog,omitempty"`

	LastCheckpoint time.Time `json:"last_checkpoint,omitzero"`
	// RequestedAt: a checkpoint request typed then is awaited (its answer
	// not in yet). A session taken back from the holder awaits it too:
	// the request is in the CLI's turn, and is not typed again.
	RequestedAt time.Time `json:"requested_at,omitzero"`
	// Unprompted: the session's first prompt has not been taken by its
	// CLI yet (typed in part, or its Enter not pressed). A warden that
	// finds the session held after a kill -9 does not take it back — it
	// would wait on a draft for good — but starts the task afresh.
	Unprompted bool `json:"unprompted,omitempty"`
	// Usage is what the agent's sessions spent in the run (spend.go).
	Usage *protocol.Usage `json:"usage,omitempty"`
	// BudgetHeld: the agent is parked at the team's budget (on_budget =
	// "pause") until `warden resume`.
	BudgetHeld bool `json:"budget_held,omitempty"`
	// OverlapHeld is the task the agent is held for (on_overlap =
	// "serialize"): its own task named a file that one named first.
	OverlapHeld string `json:"overlap_held,omitempty"`
	// LastDialog is what became of the last dialog a person answered
	// (dialogoutcome.go).
	LastDialog *DialogOutcome `json:"last_dialog,omitempty"`
}

// Snapshot is the team's state as state.json holds it and `warden status`
// shows it, while the team runs or after.
type Snapshot struct {
	Team string `json:"team"`
	// RunID names the run (DESIGN §5): every record of it carries the same
	// run_id, and a run carried on trusts only those. RunStartedAt is when
	// the run began (StartedAt: when this supervisor did); Ended is how it
	// ended (EndedFinished, EndedStopped; empty while it runs or when its
	// supervisor died). Specs are its tasks as the team file had them.
	RunID        string              `json:"run_id,omitempty"`
	RunStartedAt time.Time           `json:"run_started_at,omitzero"`
	Ended        string              `json:"ended,omitempty"`
	Specs        map[string]TaskSpec `json:"task_specs,omitempty"`
	SignalFile   string              `json:"signal_file"`
	Pid          int                 `json:"pid"`
	Running      bool                `json:"running"`
	StartedAt    time.Time           `json:"started_at"`
	UpdatedAt    time.Time           `json:"updated_at"`
	Agents       []AgentStatus       `json:"agents"`
	Tasks        []queue.Status      `json:"tasks"`
	// Usage is what every session of the run spent; Budget the team's
	// budget and where the run stands (spend.go).
	Usage  *protocol.Usage `json:"usage,omitempty"`
	Budget *Budget         `json:"budget,omitempty"`
	// CarriedOn lists each time the run was carried on (carriedon.go).
	CarriedOn []CarryOn `json:"carried_on,omitempty"`
	// Overlaps are the open tasks whose latest records name a common file
	// (overlap.go).
	Overlaps []Overlap `json:"overlaps,omitempty"`
	// Land is where the run's own land stands (land_by; nil: none yet).
	Land *Land `json:"land,omitempty"`
	// SupervisorDied is never written: warden status sets it on a run
	// whose state.json says running while no warden holds its lock
	// (MarkDied).
	SupervisorDied bool `json:"supervisor_died,omitempty"`
}

// Unknown is what warden status shows of an agent whose supervisor died:
// nothing watches it, and nobody can say whether its process lives.
const Unknown AgentState = "unknown"

// MarkDied marks s as the state of a run whose supervisor died: the run is
// not running, and each agent that was at work is shown as unknown, with
// what it was doing in its reason.
func (s *Snapshot) MarkDied() {
	s.Running, s.SupervisorDied = false, true
	for i, a := range s.Agents {
		switch a.State {
		case Idle, Stopped, Exited, Failed:
			continue
		}
		was := "was " + string(a.State) + " when warden died"
		if a.Dialog != "" {
			was += ", on a dialog: " + protocol.FirstLine(a.Dialog)
		}
		s.Agents[i].Reason = strings.TrimSuffix(was+"; "+a.Reason, "; ")
		s.Agents[i].Dialog = "" // nobody watches it now
		s.Agents[i].State = Unknown
	}
}

// ReadSnapshot reads state.json from the state dir at root.
func ReadSnapshot(root string) (*Snapshot, error) {
	p := NewLayout(root).State()
	b, err := safefile.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("read team state: %w", err)
	}
	var s Snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("decode %s: %w", p, err)
	}
	return &s, nil
}

// WriteSnapshot writes state.json and STATUS.md, each atomically.
func (d *Dir) WriteSnapshot(s Snapshot) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	// Through safefile like the store's writes: a link an agent swapped in
	// for state.json or STATUS.md is replaced, never written through.
	if err := safefile.WriteAtomic(d.Root, d.Layout.State(), append(b, '\n')); err != nil {
		return err
	}
	return safefile.WriteAtomic(d.Root, d.Layout.Status(), []byte(statusMarkdown(s)))
}
