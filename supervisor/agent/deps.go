// Package agent supervises one [[agent]] of a team: it takes tasks from the
// queue, runs a session for each, turns what its sessions report into
// records, events and task states, and applies the restart policy when a
// session's process ends before its task is done.
package agent

import (
	"context"
	"io"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/account"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/memory"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/session"
	"github.com/wardenhq/warden/supervisor/state"
)

// Deps are the team's services every agent of the team shares.
type Deps struct {
	Config *config.Team   // the team file
	Timers session.Timers // the team's timers, as sessions take them
	Team   Team           // what the agent asks of its team
	Log    hclog.Logger
	Clock  clock.Clock
	Dir    *state.Dir
	Events *state.EventLog
	Store  *state.Store
	Queue  *queue.Queue
	// Term is the user's terminal (warden wrap), or nil.
	Term Terminal
	// WardenBin is the warden executable the CLIs' hooks run.
	WardenBin string
	// RunID is the run's id: sessions resume only from records of this
	// run (DESIGN §5). Set before the team starts.
	RunID string
	// Memory is the team's max_running, memory_floor and memory_max (nil:
	// none of them).
	Memory *memory.Memory
	// Accounts park the agents that share an account at its usage limit.
	Accounts *account.Accounts
	// Workspaces holds the tasks' git worktrees (nil: every agent works in
	// its dir).
	Workspaces *Workspaces
	// Overlaps sees two open tasks' records name a common file (on_overlap;
	// nil: not watched).
	Overlaps *Overlaps
	// Reviews are the tasks' review rounds (review_by; nil: none, a task
	// with a reviewer completes unreviewed).
	Reviews *Reviews
	// HasTasks: agents take tasks from the queue; else each runs on its own.
	HasTasks bool
	// Wrap: warden wrap, where the agent's own exit ends the run.
	Wrap bool
	// OnRecord, for benchmarks, sees every checkpoint right after it is on disk.
	OnRecord func(cp *protocol.Checkpoint, at time.Time)
	// Start starts an agent's process (nil: a program under a pty) and
	// Verify runs a task's verify command (nil: queue.Verify): the two
	// seams the team core's simulation (supervisor/sim) replaces.
	Start  session.Starter
	Verify func(ctx context.Context, argv []string, dir string) queue.VerifyResult
}

// verify runs a task's verify command through the Verify seam.
func (d *Deps) verify(ctx context.Context, argv []string, dir string) queue.VerifyResult {
	if d.Verify != nil {
		return d.Verify(ctx, argv, dir)
	}
	return queue.VerifyIn(ctx, argv, dir, d.Memory.CommandBox("verify"))
}

// Team is what an agent asks of the team it works in: its progress lines,
// its published state, a team checkpoint, and what only the team knows of
// the other agents and of `--resume --from`.
type Team interface {
	// Printf writes a progress line about agent to warden's stdout (the
	// line names it where stdout is no terminal).
	Printf(agent, format string, a ...any)
	// Publish rewrites state.json and STATUS.md after a change.
	Publish()
	// TeamCheckpoint asks for a team checkpoint; lead is the agent that
	// printed CHECKPOINT COMPLETE, or "".
	TeamCheckpoint(source, reason, lead string)
	// CanTake reports whether an agent other than except, still at work,
	// may take task (a failed agent's task is handed over to it).
	CanTake(task config.Task, except string) bool
	// Pinned is the record `--resume --from` chose for a task, or nil: the
	// task's sessions resume from it until a newer record exists.
	Pinned(task string) *protocol.Checkpoint
	// Spent charges the team with what a session of agent spent on task
	// ("": none) since its last figure; the team checks its budgets.
	Spent(agent, task string, gained protocol.Usage)
}

// Terminal is the user's own terminal under warden wrap.
type Terminal interface {
	Output() io.Writer
	Size() runner.Size
}

// windowSize is the size new sessions start with.
func (d *Deps) windowSize() runner.Size {
	if d.Term == nil {
		return runner.Size{Rows: runner.DefaultRows, Cols: runner.DefaultCols}
	}
	return d.Term.Size()
}

func (d *Deps) termOutput() io.Writer {
	if d.Term == nil {
		return nil
	}
	return d.Term.Output()
}
