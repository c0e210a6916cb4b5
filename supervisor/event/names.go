// Package event names every event warden writes to events.jsonl: one list,
// which the event log writes, [[notify]] tables are checked against, and
// docs/files.md documents (a test holds the two together).
package event

// Event names.
const (
	AgentStarted         = "agent_started"
	AgentExited          = "agent_exited"
	AgentRestarted       = "agent_restarted"
	AgentFailed          = "agent_failed"
	AgentForceTerminated = "agent_force_terminated"
	AgentStale           = "agent_stale"
	AgentStalled         = "agent_stalled"
	AgentWarned          = "agent_warned"
	AgentWaiting         = "agent_waiting"
	// An agent at its prompt whose checkpoints stopped moving (idle_after):
	// a line typed to it, at most idle_nudges times a task; then a person
	// told, once. {idle_for, nudge, of, progress, session_id} / {idle_for,
	// nudges, progress, reason, session_id}
	AgentNudged    = "agent_nudged"
	AgentIdle      = "agent_idle"
	AgentResumed   = "agent_resumed"
	DialogDenied   = "dialog_denied"
	AgentLogFailed = "agent_log_failed"
	HookRefused    = "hook_refused" // a hook message not from the agent's processes, or of a kind its CLI never sends

	CheckpointRequested = "checkpoint_requested"
	CheckpointReceived  = "checkpoint_received"
	CheckpointTimeout   = "checkpoint_timeout"
	CheckpointRejected  = "checkpoint_rejected"
	CheckpointAmended   = "checkpoint_amended" // late optional lines added to a record
	AnswersDropped      = "answers_dropped"    // a flood of answers: what was not recorded

	TaskDispatched   = "task_dispatched"
	TaskCompleted    = "task_completed"
	TaskFailed       = "task_failed"
	TaskVerifyFailed = "task_verify_failed"
	TaskBlocked      = "task_blocked"
	TaskReleased     = "task_released" // a failed agent's task, back in the queue for another
	TaskAfresh       = "task_afresh"   // its checkpoint could not be resumed: it starts over
	TaskReopened     = "task_reopened" // warden run --resume --from: the task goes on from an earlier record, open again
	// Two open tasks whose latest records name a common file (on_overlap),
	// once per pair and path set: {tasks, agents, paths, new, action: warn
	// | serialize}; the event's task and agent are the later ones.
	Overlap = "overlap"
	// A task's review rounds (review_by): a round asked of its reviewer
	// {reviewer, round, author}, and its answer, recorded once {reviewer,
	// round, findings: how many, approved, open: the findings named when
	// the last round had some}; the event's task is the reviewed one, its
	// agent the reviewer.
	ReviewRequested = "review_requested"
	ReviewDone      = "review_done"

	// A run and what it trusts (DESIGN §5).
	RunStarted = "run_started" // {run_id, how: new | carried_on | readopted | upgraded, previous_run, reason, agents, from, to}
	// `warden upgrade`: the running warden lets go of its agents and execs
	// the new binary {from, to, binary, agents}; or the exec failed, and it
	// runs on {binary, reason}.
	SupervisorUpgrading     = "supervisor_upgrading"
	SupervisorUpgradeFailed = "supervisor_upgrade_failed"
	CheckpointRestored      = "checkpoint_restored" // a checkpoint file did not parse: {file, from} ("" from: lost)
	// A record warden did not write (issue 33: no seal in a run warden
	// seals, or a seal that does not match): never trusted. {file,
	// checkpoint_id, agent, reason}
	CheckpointUntrusted = "checkpoint_untrusted"
	ResumeStale         = "resume_stale" // a session resumes from a record older than stale_failure: {checkpoint_id, age}

	WorkCommitted = "work_committed" // a task's worktree committed to its branch
	WorkMerged    = "work_merged"    // a completed task's branch fast-forwarded into base
	MergeRefused  = "merge_refused"  // … or not, and why
	// The integration branch (warden land, land = "branch" | "ff-base"):
	// {branch, base, tasks, verify, base_moved, stopped}, and what stopped
	// it {task, why, branch}.
	WorkLanded  = "work_landed"
	LandStopped = "land_stopped"
	// A stopped land handed to land_by as a land task of its own {lands,
	// kind, paths, branch, attempt, of}, and one left for a person after
	// land_attempts {why, attempts}.
	LandHanded = "land_handed"
	LandLeft   = "land_left"
	// A task's worktree that is no longer the one warden made (a symbolic
	// link, a .git of the agent's own or naming another repository): nothing
	// committed from it, no session started in it. {path, reason}
	WorktreeRefused = "worktree_refused"

	UsageLimitWait   = "usage_limit_wait"
	ContextThreshold = "context_threshold"

	// An account's usage limit (DESIGN §6 "Account").
	AccountParked    = "account_parked"    // every agent of the account parked: {account, agents, resets_at, source, text}
	AccountResumed   = "account_resumed"   // … and carrying on after the reset: {account, agents, resets_at, parked_for}
	LimitApproaching = "limit_approaching" // a CLI's own warning before its limit, once a notice: {text, resets_at}
	DialogAnswered   = "dialog_answered"   // a CLI's limit dialog answered with the choice that changes nothing: {by, choice, kind, text}

	// The machine's memory (max_running, memory_floor, memory_max).
	AdmissionWaiting = "admission_waiting" // an agent waits its turn to start: {memory_available, needed, running, …}
	AgentAdmitted    = "agent_admitted"    // … and starts: {waited, …}
	AgentOverMemory  = "agent_over_memory" // the RSS watch: over memory_max, checkpointed and restarted
	AgentOOM         = "agent_oom"         // the kernel's OOM killer ended the agent: {pid, evidence, …}

	// Budgets: max_cost and max_tokens, the team's and each task's.
	CostWarning    = "cost_warning"    // cost_warning % of a budget spent, once a budget: {budget: team | task, limit, max, spent, percent}
	BudgetExceeded = "budget_exceeded" // a budget reached: {budget, limit, max, spent, action: task_failed | checkpoint-exit | pause}
	BudgetResumed  = "budget_resumed"  // warden resume (or the page): parked agents go on, the budget lifted or raised: {agents, lifted, max_cost, max_tokens, via}

	TeamCheckpointStarted = "team_checkpoint_started"
	HandoffWritten        = "handoff_written"
	CheckpointComplete    = "checkpoint_complete"
	TeamRehydrated        = "team_rehydrated"
	TeamDone              = "team_done"

	// A person operating the running team (warden send, restart, stop,
	// attach).
	TextSent         = "text_sent"         // warden send: {outcome, reason, bytes, force, text}
	RestartRequested = "restart_requested" // warden restart AGENT
	StopRequested    = "stop_requested"    // warden stop: {now}
	ViewerAttached   = "viewer_attached"   // warden attach: {rw}
	ViewerDetached   = "viewer_detached"   // … and why: {why: detached | slow | ended}
)

// Names lists every event name.
var Names = []string{
	AgentStarted,
	AgentExited,
	AgentRestarted,
	AgentFailed,
	AgentForceTerminated,
	AgentStale,
	AgentStalled,
	AgentWarned,
	AgentWaiting,
	AgentNudged,
	AgentIdle,
	AgentResumed,
	DialogDenied,
	AgentLogFailed,
	HookRefused,
	CheckpointRequested,
	CheckpointReceived,
	CheckpointTimeout,
	CheckpointRejected,
	CheckpointAmended,
	AnswersDropped,
	TaskDispatched,
	TaskCompleted,
	TaskFailed,
	TaskVerifyFailed,
	TaskBlocked,
	TaskReleased,
	TaskAfresh,
	TaskReopened,
	Overlap,
	ReviewRequested,
	ReviewDone,
	RunStarted,
	SupervisorUpgrading,
	SupervisorUpgradeFailed,
	CheckpointRestored,
	CheckpointUntrusted,
	ResumeStale,
	WorkCommitted,
	WorkMerged,
	MergeRefused,
	WorkLanded,
	LandStopped,
	LandHanded,
	LandLeft,
	WorktreeRefused,
	UsageLimitWait,
	ContextThreshold,
	AccountParked,
	AccountResumed,
	LimitApproaching,
	DialogAnswered,
	AdmissionWaiting,
	AgentAdmitted,
	AgentOverMemory,
	AgentOOM,
	CostWarning,
	BudgetExceeded,
	BudgetResumed,
	TeamCheckpointStarted,
	HandoffWritten,
	CheckpointComplete,
	TeamRehydrated,
	TeamDone,
	TextSent,
	RestartRequested,
	StopRequested,
	ViewerAttached,
	ViewerDetached,
}
