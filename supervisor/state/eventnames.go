package state

// Event names written to events.jsonl: DESIGN §5's, and the additions the
// README lists. Every event warden writes is named here.
const (
	EvAgentStarted         = "agent_started"
	EvAgentExited          = "agent_exited"
	EvAgentRestarted       = "agent_restarted"
	EvAgentFailed          = "agent_failed"
	EvAgentForceTerminated = "agent_force_terminated"
	EvAgentStale           = "agent_stale"
	EvAgentStalled         = "agent_stalled"
	EvAgentWaiting         = "agent_waiting"
	EvAgentResumed         = "agent_resumed"
	EvDialogDenied         = "dialog_denied"
	EvAgentLogFailed       = "agent_log_failed"

	EvCheckpointRequested = "checkpoint_requested"
	EvCheckpointReceived  = "checkpoint_received"
	EvCheckpointTimeout   = "checkpoint_timeout"
	EvCheckpointRejected  = "checkpoint_rejected"

	EvTaskDispatched   = "task_dispatched"
	EvTaskCompleted    = "task_completed"
	EvTaskFailed       = "task_failed"
	EvTaskVerifyFailed = "task_verify_failed"

	EvUsageLimitWait   = "usage_limit_wait"
	EvContextThreshold = "context_threshold"

	EvTeamCheckpointStarted = "team_checkpoint_started"
	EvHandoffWritten        = "handoff_written"
	EvCheckpointComplete    = "checkpoint_complete"
	EvTeamRehydrated        = "team_rehydrated"
	EvTeamDone              = "team_done"
)
