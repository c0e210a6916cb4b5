// Package report builds the night in one page (DESIGN §2 `warden report`,
// issue 25 item 4) from a team's state dir alone — state.json, events.jsonl
// and the checkpoint history — while the team runs or after it: the run and
// how it ended, the tasks done, failed and open with their time worked
// beside their estimate, what needed a person and how long it waited, the
// restarts and why, the usage limits, the checkpoints, the team checkpoints,
// and the tokens and cost where the records carry them. It never needs the
// control socket. The same report is written to report.md at the end of
// every run and carried by the team_done event.
package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// Version is the report's format: it changes when a field of the JSON is
// removed or changes meaning (fields are only ever added otherwise).
const Version = 1

// ErrNoRun: the state dir holds no run to report on (no state.json, or one
// that names no run).
var ErrNoRun = errors.New("no run to report on")

// FileName is the report's file in the state dir, written at the end of
// every run.
const FileName = "report.md"

// Path is report.md in the state dir at root.
func Path(root string) string { return filepath.Join(root, FileName) }

// How a run stands, as Run.Ended says.
const (
	EndedRunning     = "running" // its supervisor runs it now
	EndedFinished    = state.EndedFinished
	EndedStopped     = state.EndedStopped
	EndedInterrupted = "interrupted" // its supervisor died; `warden run` carries it on
)

// Report is the night in one page. Its JSON (`warden report --json`, the
// team_done event's "report") is stable: fields are added, never renamed.
// Lists are never null; times are RFC 3339, durations seconds.
type Report struct {
	Version   int       `json:"version"`
	Team      string    `json:"team"`
	StateDir  string    `json:"state_dir"`
	Generated time.Time `json:"generated"` // when this report was made
	Run       Run       `json:"run"`
	Summary   Summary   `json:"summary"`
	// Tasks in the team file's order; Agents by name.
	Tasks  []Task  `json:"tasks"`
	Agents []Agent `json:"agents"`
	// Waits: every dialog an agent waited on, oldest first.
	Waits []Wait `json:"waits"`
	// Restarts: every agent_restarted, with why; Failures every agent_failed.
	Restarts []Restart `json:"restarts"`
	Failures []Failure `json:"failures"`
	// Review: the complete tasks whose work waits for a person, in the
	// team file's order (their branch and last commit in worktree mode).
	Review []Review `json:"review"`
	// Land: the run's last land onto its integration branch (nil: none).
	Land *Land `json:"land,omitempty"`
	// Limits: usage-limit pauses and account parkings, oldest first.
	Limits          []Limit          `json:"limits"`
	TeamCheckpoints []TeamCheckpoint `json:"team_checkpoints"`
	Usage           Usage            `json:"usage"`
	// Notes say what the report could not read (a torn events line, no
	// run_started for the run …); empty when it read everything.
	Notes []string `json:"notes"`
	// Truncated: lists were cut to fit the team_done event (Bounded);
	// report.md and `warden report` have them whole.
	Truncated bool `json:"truncated,omitempty"`
}

// Run is the run state.json names and how it stands.
type Run struct {
	ID      string    `json:"id"`
	Started time.Time `json:"started"`
	// Ended: running | finished | stopped | interrupted (its supervisor
	// died). Why says more: the last team checkpoint's reason for a stop,
	// the tasks' outcome for a finished run.
	Ended   string    `json:"ended"`
	Why     string    `json:"why,omitempty"`
	EndedAt time.Time `json:"ended_at,omitzero"` // zero while it runs
	// DurationSeconds: from its start to its end (to now while it runs),
	// the time between supervisors included.
	DurationSeconds float64 `json:"duration_seconds"`
	// ExitCode: warden's exit code at the run's last team_done (absent
	// while it runs, or when its supervisor died).
	ExitCode *int `json:"exit_code,omitempty"`
	// CarriedOn: each time a new supervisor carried the run on.
	CarriedOn []CarryOn `json:"carried_on"`
}

// CarryOn is one carrying on of the run (run_started, how carried_on).
type CarryOn struct {
	At     time.Time `json:"at"`
	Reason string    `json:"reason,omitempty"`
}

// Summary counts what the lists hold (and stays whole when they are cut).
type Summary struct {
	Tasks  int `json:"tasks"`
	Done   int `json:"done"`
	Failed int `json:"failed"`
	Open   int `json:"open"`
	// Checkpoints received (checkpoint_received), rejected and timed out
	// (a request not answered in time); CheckpointsKept: this run's records
	// of answers the history holds (index.json, warden's dispatch records
	// aside; the retention policy prunes it).
	Checkpoints     int `json:"checkpoints"`
	CheckpointsKept int `json:"checkpoints_kept"`
	Rejected        int `json:"rejected"`
	Timeouts        int `json:"timeouts"`
	Restarts        int `json:"restarts"`
	Failures        int `json:"failures"`
	Stalls          int `json:"stalls"`
	Waits           int `json:"waits"`
	// WaitedSeconds: the time agents waited on a person, all waits added.
	WaitedSeconds   float64 `json:"waited_seconds"`
	Limits          int     `json:"limits"`
	TeamCheckpoints int     `json:"team_checkpoints"`
	// WorkedSeconds: the tasks' time worked; EstimateSeconds the estimates
	// of those that have one, and EstimatedWorkedSeconds their time worked.
	WorkedSeconds          float64 `json:"worked_seconds"`
	EstimateSeconds        float64 `json:"estimate_seconds"`
	EstimatedWorkedSeconds float64 `json:"estimated_worked_seconds"`
}

// Task is one task of the run.
type Task struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// State as state.json has it (queue.State); Label in a person's words
	// (blocked, waiting for its blocked_by …).
	State    string `json:"state"`
	Label    string `json:"label"`
	Owner    string `json:"owner,omitempty"`
	Attempt  int    `json:"attempt"`
	Progress int    `json:"progress"`
	// Branch and Base: its git worktree's branch and the branch it started
	// from (worktree mode).
	Branch string `json:"branch,omitempty"`
	Base   string `json:"base,omitempty"`
	// Reason: why it failed (or is held); Blockers what its agent said it
	// is blocked on.
	Reason          string   `json:"reason,omitempty"`
	Blockers        []string `json:"blockers,omitempty"`
	WorkedSeconds   float64  `json:"worked_seconds"`
	EstimateSeconds float64  `json:"estimate_seconds,omitempty"`
	Checkpoints     int      `json:"checkpoints"`
	CheckpointsKept int      `json:"checkpoints_kept"`
	Rejected        int      `json:"rejected"`
	Timeouts        int      `json:"timeouts"`
	Restarts        int      `json:"restarts"`
	VerifyFailed    int      `json:"verify_failed"`
	// ReviewRounds: its review rounds answered (review_by); OpenFindings
	// the findings its last round left open when it completed with them.
	ReviewRounds int      `json:"review_rounds,omitempty"`
	OpenFindings []string `json:"open_findings,omitempty"`
	Usage        *Spend   `json:"usage,omitempty"`
}

// Agent is what one agent went through in the run.
type Agent struct {
	Name  string `json:"name"`
	State string `json:"state,omitempty"` // as state.json has it last
	// Sessions started; Restarts; Stalls (agent_stalled); BadExits: exits
	// with a code other than 0 or by a signal, but for the sessions a team
	// checkpoint stopped.
	Sessions int  `json:"sessions"`
	Restarts int  `json:"restarts"`
	Stalls   int  `json:"stalls"`
	BadExits int  `json:"bad_exits"`
	Failed   bool `json:"failed"`
	// Waits on a person and how long in all; Limits: its usage-limit pauses.
	Waits         int     `json:"waits"`
	WaitedSeconds float64 `json:"waited_seconds"`
	Limits        int     `json:"limits"`
	Usage         *Spend  `json:"usage,omitempty"`
}

// Wait is a dialog an agent waited on, from agent_waiting to its end.
type Wait struct {
	Agent string    `json:"agent"`
	Task  string    `json:"task,omitempty"`
	Kind  string    `json:"kind"` // permission | question | other, as the profile says
	Text  string    `json:"text"` // the dialog's text, on one line, bounded
	Since time.Time `json:"since"`
	// Until is when it ended (zero: it had not); WaitedSeconds to then (to
	// the report's time, or the run's end, when it had not).
	Until         time.Time `json:"until,omitzero"`
	WaitedSeconds float64   `json:"waited_seconds"`
	// Ended: resumed (the dialog went away: answered), denied (by warden,
	// on_dialog = "deny"), answered (dialog_answered: By, Choice),
	// replaced (another dialog came), session_ended, waiting (not yet),
	// run_ended (still waiting when the run ended).
	Ended  string `json:"ended"`
	By     string `json:"by,omitempty"`
	Choice string `json:"choice,omitempty"`
}

// Restart is one agent_restarted and why.
type Restart struct {
	At      time.Time `json:"at"`
	Agent   string    `json:"agent"`
	Task    string    `json:"task,omitempty"`
	Attempt int       `json:"attempt"` // the new session's
	// Why in words: "exited with code 1", "killed by SIGKILL", "stalled
	// (no output for 30m)", "warden restart"…; ExitCode the ended
	// session's code when its exit was seen.
	Why      string `json:"why"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Backoff  string `json:"backoff,omitempty"`
}

// Failure is one agent_failed: the agent is not restarted again.
type Failure struct {
	At        time.Time `json:"at"`
	Agent     string    `json:"agent"`
	Task      string    `json:"task,omitempty"`
	Reason    string    `json:"reason"`
	LastLines []string  `json:"last_lines,omitempty"`
}

// Limit is a usage-limit pause (usage_limit_wait: one agent) or an
// account parked at its limit (account_parked … account_resumed).
type Limit struct {
	Kind    string    `json:"kind"` // usage_limit_wait | account_parked
	At      time.Time `json:"at"`
	Agent   string    `json:"agent,omitempty"`
	Task    string    `json:"task,omitempty"`
	Account string    `json:"account,omitempty"`
	Agents  []string  `json:"agents,omitempty"`
	// Until: when warden planned to go on; Reset: the reset time the
	// limit's source gave ("" when none did); Resumed: when the account
	// was resumed (account_resumed).
	Until   time.Time `json:"until,omitzero"`
	Reset   string    `json:"reset,omitempty"`
	Resumed time.Time `json:"resumed,omitzero"`
	Source  string    `json:"source,omitempty"`
	Text    string    `json:"text,omitempty"`
}

// TeamCheckpoint is one team_checkpoint_started.
type TeamCheckpoint struct {
	At     time.Time `json:"at"`
	Cause  string    `json:"cause"`
	Reason string    `json:"reason"`
	// Complete: CHECKPOINT COMPLETE followed it.
	Complete bool `json:"complete"`
}

// Build reads the report of the run state.json names from the state dir
// at root, as it stands at now. ErrNoRun when there is none.
func Build(root string, now time.Time) (*Report, error) {
	snap, err := state.ReadSnapshot(root)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s holds no state.json", ErrNoRun, root)
		}
		return nil, err
	}
	if snap.RunID == "" {
		return nil, fmt.Errorf("%w: %s names no run (state.json from an older warden)", ErrNoRun, root)
	}
	r := &Report{Version: Version, Team: plain(snap.Team), StateDir: root, Generated: now,
		Run:   Run{ID: plain(snap.RunID), Started: snap.RunStartedAt, CarriedOn: []CarryOn{}},
		Tasks: []Task{}, Agents: []Agent{}, Waits: []Wait{}, Restarts: []Restart{}, Failures: []Failure{},
		Review: []Review{}, Limits: []Limit{}, TeamCheckpoints: []TeamCheckpoint{}, Notes: []string{}}
	b := newBuilder(r, snap)
	if err := b.readEvents(state.NewLayout(root).Events()); err != nil {
		r.Notes = append(r.Notes, plain(err.Error()))
	}
	b.readHistory(root)
	b.finish(snap, state.LockHeld(root), now)
	r.Review = b.reviews()
	r.Land = b.land
	if r.Land != nil {
		r.Land.Handed, r.Land.Left = b.landHanded, b.landLeft
	}
	fillUsage(r, root, b.records)
	return r, nil
}

// tasksOf turns state.json's tasks into the report's, in their order.
func tasksOf(ts []queue.Status) []Task {
	out := make([]Task, 0, len(ts))
	for _, t := range ts {
		task := Task{ID: plain(t.ID), Title: plain(t.Title), State: plain(string(t.State)), Label: plain(t.Label()),
			Owner: plain(t.Owner), Attempt: t.Attempt, Progress: t.Progress, WorkedSeconds: t.WorkedSeconds,
			EstimateSeconds: t.EstimateSeconds, Branch: plain(t.Branch), Base: plain(t.Base)}
		if t.State != queue.Complete {
			task.Reason = clip(plain(t.Reason), maxText)
		}
		for _, bl := range t.BlockedOn() {
			if bl != t.Reason {
				task.Blockers = append(task.Blockers, clip(plain(bl), maxText))
			}
		}
		out = append(out, task)
	}
	return out
}
