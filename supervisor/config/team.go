// Package config loads and validates a warden team file (DESIGN.md §3).
//
// Decoding is strict: every problem in the file — a TOML syntax error, an
// unknown key, a value of the wrong type, a bad duration, a duplicate name, an
// empty command, a cycle in blocked_by, a reference to an unknown agent or task —
// is reported as an Error carrying the file:line:col of the offending key (or of
// the element inside an array, or of the table header when a required key is
// missing). All problems are collected and returned together as Errors, sorted by
// position; nothing invalid is silently replaced by a default.
//
// Positions: BurntSushi/toml v1.6 reports positions for syntax errors only
// (ParseError.Position); MetaData has no positions for decoded keys and keys
// inside [[agent]] occurrences share one name. The package therefore keeps a
// small index of its own (posindex.go) built by scanning the already-valid
// source. Lines and columns are 1-based; a column counts characters (runes), a
// tab counting as one.
//
// Names: agent names and task ids become parts of file names in the state dir
// ("checkpoints/{agent}-{task}.json", "logs/{agent}.log"), so both must match
// [A-Za-z0-9._-]+, be at most 100 characters, and not be "." or "..". Two agents
// (or two tasks) whose names differ only in letter case are duplicates, because
// a state dir may live on a case-insensitive file system.
package config

import (
	"fmt"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
)

// Defaults for keys a team file may leave out.
const (
	DefaultStateDir            = ".warden"
	DefaultCheckpointInterval  = 5 * time.Minute
	DefaultCheckpointTimeout   = 30 * time.Second
	DefaultShutdownTimeout     = 30 * time.Second
	DefaultStaleWarning        = 10 * time.Minute
	DefaultStaleFailure        = 30 * time.Minute
	DefaultIdleAfter           = 20 * time.Minute
	DefaultIdleNudges          = 2
	DefaultSignalFile          = "checkpoint-needed"
	DefaultContextThreshold    = 80
	DefaultUsageLimitWait      = time.Hour
	DefaultAfterTeamCheckpoint = AfterRehydrate
	DefaultProfile             = ProfilePlain
	DefaultRestart             = RestartOnFailure
	DefaultMaxRestarts         = 5
	DefaultOnDialog            = DialogWait
	DefaultDialogTimeout       = 15 * time.Minute
	DefaultLogMaxSize          = 50 * MB // bytes
	DefaultLogKeep             = 5
	DefaultNotifyTimeout       = 30 * time.Second
	DefaultNotifyMinInterval   = 10 * time.Minute
	DefaultSandbox             = SandboxBox
	DefaultOrphanTimeout       = 10 * time.Minute
)

// Values of sandbox: whether each agent runs in a box warden builds.
const (
	// SandboxBox: each agent session, task verify and notify command in a
	// cgroup of its own (killed whole with cgroup.kill) and a Landlock
	// domain with the signal and abstract-socket scopes, where the kernel
	// allows it; what it does not allow is said at start.
	SandboxBox = "box"
	// SandboxOff: the agents run as warden's other children, tracked by
	// process group, session and runner tag only.
	SandboxOff = "off"
)

// MinLogMaxSize is the smallest log_max_size a team file may set.
const MinLogMaxSize = 1 * MB

// MinMemoryFloor and MinMemoryMax are the smallest memory_floor and
// memory_max a team file may set (less than a program's own pages would
// stop or restart every agent).
const (
	MinMemoryFloor = 1 * MB
	MinMemoryMax   = 32 * MB
)

// Size units of log_max_size: KB, MB, GB are powers of 1000; KiB, MiB, GiB
// powers of 1024.
const (
	KB  int64 = 1000
	MB        = 1000 * KB
	GB        = 1000 * MB
	KiB int64 = 1024
	MiB       = 1024 * KiB
	GiB       = 1024 * MiB
)

// Values of on_dialog: what an agent whose CLI waits on a dialog (a
// permission prompt, a question) gets from warden. There is no "approve".
const (
	DialogWait = "wait" // leave the dialog to a person (and notify)
	DialogDeny = "deny" // after dialog_timeout, answer with the CLI's deny/cancel keys
)

// Values of an agent's channel.
const (
	ChannelAppServer = "app-server" // Codex's app-server beside its TUI
	ChannelScreen    = "screen"     // the screen (and the CLI's hooks) only
)

// Values of after_team_checkpoint.
const (
	AfterRehydrate = "rehydrate"
	AfterExit      = "exit"
)

// ProfilePlain is the profile of an agent that names none; the others are
// protocol/profile's Names(), each registered by its CLI's file there.
const ProfilePlain = profile.PlainName

// Values of an agent's restart policy.
const (
	RestartNever     = "never"
	RestartOnFailure = "on-failure"
	RestartAlways    = "always"
)

// Team is a validated team file with every default filled in and every path
// made absolute.
type Team struct {
	Path               string        // absolute path of the team file
	Name               string        // default: the file's base name without extension
	StateDir           string        // absolute; relative to the team file's dir; default ".warden"
	CheckpointInterval time.Duration // default 5m
	CheckpointTimeout  time.Duration // default 30s
	ShutdownTimeout    time.Duration // default 30s
	StaleWarning       time.Duration // default 10m
	StaleFailure       time.Duration // default 30m; must be longer than StaleWarning
	// IdleAfter: an agent at its prompt whose checkpoints have not moved
	// for this long is nudged (IdleNudges times a task), then said idle
	// (idle.go); default 20m, 0 for never.
	IdleAfter        time.Duration
	IdleNudges       int    // default 2; 0: agent_idle without a nudge
	SignalFile       string // absolute, inside StateDir; default "checkpoint-needed"
	ContextThreshold int    // default 80, 1..100
	// UsageLimitWait is how long an agent that hit a usage limit waits when
	// the reset time cannot be read off its screen; default 1h.
	UsageLimitWait      time.Duration
	AfterTeamCheckpoint string // "rehydrate" (default) | "exit"
	// OnDialog is what happens to an agent waiting on a dialog: "wait"
	// (default) or "deny"; an agent's own on_dialog overrides it (see Dialog).
	OnDialog string
	// DialogTimeout is how long a "deny" agent's dialog stays open before
	// warden denies it; default 15m; an agent's dialog_timeout overrides it.
	DialogTimeout time.Duration
	// OnLimit is what an account's usage limit does to the run: "wait"
	// (default: its agents are parked until the reset) or
	// "checkpoint-exit" (a team checkpoint, then exit 0).
	OnLimit string
	// MaxRuntime: once the team has run this long, a team checkpoint and
	// exit; 0 (default) for no limit.
	MaxRuntime time.Duration
	// StopAt is stop_at, "HH:MM" in local time: a team checkpoint and exit at
	// the next such time (see NextStop); "" (default) for none.
	StopAt     string
	LogMaxSize int64 // bytes at which logs/{agent}.log is rotated; default 50MB, at least 1MB
	LogKeep    int   // rotated logs kept (.1 … .N); default 5, at least 1
	// WorkspaceMode is the team's workspace: "shared" (one dir for all, the
	// default) or "worktree" (a git worktree and branch per task).
	WorkspaceMode string
	// Base is the branch tasks start from in worktree mode; "" means the
	// current branch of the repository that holds the agent's dir.
	Base string
	// Merge is "none" (a completed task's branch stays for review) or "ff"
	// (fast-forwarded into Base when it can be).
	Merge string
	// OnOverlap is what two open tasks whose latest records name a common
	// file do: "warn" (default: overlap, a WARNING) or "serialize"
	// (and the later task is held until the first ends).
	OnOverlap string
	// Landing is land, land_verify, land_verify_each, land_verify_timeout
	// (land.go).
	Landing
	// Review is review_by and max_review_rounds (review.go).
	Review
	// MaxRunning is how many agents may run at once (the others wait their
	// turn); 0 (default) for no limit.
	MaxRunning int
	// MemoryFloor: an agent does not start while starting it would take
	// MemAvailable under this many bytes; 0 (default) for no such gate.
	MemoryFloor int64
	// Sandbox is "box" (default: every agent in a box warden builds) or
	// "off".
	Sandbox string
	// Holder: the agents run under the team's holder (`warden hold`), which
	// keeps their terminals while no warden runs; default false.
	Holder bool
	// OrphanTimeout: a holder no warden came back to for this long stops
	// its agents; default 10m.
	OrphanTimeout time.Duration
	// TeamBudget is max_cost, max_tokens, cost_warning, on_budget and the
	// [[price]] table (budget.go).
	TeamBudget
	// Retention is which checkpoint records and handoffs the history keeps.
	Retention Retention
	Notify    []Notify
	Agents    []Agent
	Tasks     []Task
}

// Agent is one [[agent]] slot.
type Agent struct {
	Name        string
	Command     []string          // non-empty argv, argv[0] not blank
	Profile     string            // plain (default) or another of profile.Names()
	Dir         string            // absolute; relative to the team file's dir; default "."
	Env         map[string]string // nil when the file has no env
	Restart     string            // never | on-failure (default) | always
	MaxRestarts int               // default 5; 0 means "no restarts"
	Prompt      string            // optional first prompt (a team with no tasks)
	// OnDialog overrides the team's on_dialog: "wait" | "deny"; "" when
	// the file leaves it to the team. Team.Dialog gives the effective policy.
	OnDialog string
	// DialogTimeout overrides the team's dialog_timeout; 0 when the file
	// leaves it to the team.
	DialogTimeout time.Duration
	// Lead: only a lead may end a team checkpoint with CHECKPOINT COMPLETE
	// (and only a lead is told how in its preamble).
	Lead bool
	// Workspace overrides the team's workspace; "" when the file has none.
	Workspace string
	// Account names the account whose usage limit the agent shares with
	// the other agents naming it; "" when the file leaves it to the default
	// (the same CLI and config home: see agent.AccountOf).
	Account string
	// MemoryMax is the most memory, in bytes, the agent's processes may
	// hold: a cgroup limit where warden can make one, else a watch on their
	// RSS; 0 (default) for no limit.
	MemoryMax int64
	// Channel is how warden reads a Codex agent besides its screen:
	// "app-server" (its TUI attached to an app-server warden starts, read
	// as a second client), "screen" (the screen, notify and rollout
	// only); "" when the file leaves it: app-server where the Codex CLI
	// has it.
	Channel string
	Pos     Position // the [[agent]] header
}

// Task is one [[task]] of the task list.
type Task struct {
	ID         string
	Title      string   // optional; empty when the file has none
	Prompt     string   // prompt, or the content of prompt_file
	PromptFile string   // absolute path if given
	BlockedBy  []string // ids of tasks that must complete first
	Agent      string   // optional: only this agent takes the task
	Verify     []string // optional argv run when the agent says it is done
	// MaxAttempts is the most sessions the task gets (restarts and
	// rehydrations counted) before it fails; 0 (default) for no limit.
	MaxAttempts int
	// MaxTime is the most wall time worked on the task before it fails; 0
	// (default) for no limit.
	MaxTime time.Duration
	// Estimate is how long the task should take, shown beside the time
	// worked on it (the seeds' actual vs estimated); 0 (default) for none.
	Estimate time.Duration
	// Budget is the task's max_cost and max_tokens (zero: none).
	Budget
	// ReviewBy is the agent that reviews the task's work once it is done
	// and verified: its own review_by, else the team's; "" for none.
	ReviewBy string
	// Lands is, for a land task warden made (land_by), what stopped the
	// land it resolves (a task id, or the ids a land_verify failed after);
	// "" for a [[task]].
	Lands string
	Pos   Position // the [[task]] header
}

// Agent returns the agent with the given name.
func (t *Team) Agent(name string) (*Agent, bool) {
	for i := range t.Agents {
		if t.Agents[i].Name == name {
			return &t.Agents[i], true
		}
	}
	return nil, false
}

// Task returns the task with the given id.
func (t *Team) Task(id string) (*Task, bool) {
	for i := range t.Tasks {
		if t.Tasks[i].ID == id {
			return &t.Tasks[i], true
		}
	}
	return nil, false
}

// Position is a place in a team file.
type Position struct {
	File      string // the path as given to Load or Parse
	Line, Col int    // 1-based; Col counts characters
}

// String formats the position as "team.toml:12:3".
func (p Position) String() string {
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// before orders positions by line, then column.
func (p Position) before(q Position) bool {
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}
