package config

import (
	"path/filepath"
	"time"
)

// Defaults returns a team with every default of DESIGN §3 filled in and no
// agents, tasks or notify rules. Its StateDir (".warden") and SignalFile
// (".warden/checkpoint-needed") are relative: Load makes them absolute,
// relative to the team file; code that builds a team by hand sets both.
func Defaults() Team {
	return Team{
		StateDir:            DefaultStateDir,
		CheckpointInterval:  DefaultCheckpointInterval,
		CheckpointTimeout:   DefaultCheckpointTimeout,
		ShutdownTimeout:     DefaultShutdownTimeout,
		StaleWarning:        DefaultStaleWarning,
		StaleFailure:        DefaultStaleFailure,
		IdleAfter:           DefaultIdleAfter,
		IdleNudges:          DefaultIdleNudges,
		SignalFile:          filepath.Join(DefaultStateDir, DefaultSignalFile),
		ContextThreshold:    DefaultContextThreshold,
		UsageLimitWait:      DefaultUsageLimitWait,
		AfterTeamCheckpoint: DefaultAfterTeamCheckpoint,
		OnDialog:            DefaultOnDialog,
		DialogTimeout:       DefaultDialogTimeout,
		OnLimit:             DefaultOnLimit,
		LogMaxSize:          DefaultLogMaxSize,
		LogKeep:             DefaultLogKeep,
		Retention:           RetentionDefaults(),
		WorkspaceMode:       DefaultWorkspace,
		Merge:               DefaultMerge,
		OnOverlap:           DefaultOnOverlap,
		Review:              Review{MaxReviewRounds: DefaultMaxReviewRounds},
		Landing:             Landing{Land: DefaultLand, LandVerifyTimeout: DefaultLandVerifyTimeout, LandAttempts: DefaultLandAttempts},
		Sandbox:             DefaultSandbox,
		OrphanTimeout:       DefaultOrphanTimeout,
		TeamBudget:          TeamBudget{CostWarning: DefaultCostWarning, OnBudget: DefaultOnBudget},
	}
}

// AgentDefaults returns an [[agent]] with its defaults filled in: no name or
// command, Dir "." (relative: Load resolves it against the team file), and
// the dialog policy left to the team.
func AgentDefaults() Agent {
	return Agent{
		Profile:     DefaultProfile,
		Dir:         ".",
		Restart:     DefaultRestart,
		MaxRestarts: DefaultMaxRestarts,
	}
}

// NotifyDefaults returns a [[notify]] rule with its defaults filled in and
// no events or command.
func NotifyDefaults() Notify {
	return Notify{Timeout: DefaultNotifyTimeout, MinInterval: DefaultNotifyMinInterval}
}

// DialogPolicy is what warden does with an agent whose CLI waits on a dialog.
type DialogPolicy struct {
	On      string        // DialogWait | DialogDeny
	Timeout time.Duration // with DialogDeny: how long the dialog stays open first
}

// Dialog returns agent a's effective dialog policy: its own on_dialog and
// dialog_timeout where set, else the team's, else the defaults (a team
// built by hand may leave them zero). a may be nil for the team's policy.
func (t *Team) Dialog(a *Agent) DialogPolicy {
	p := DialogPolicy{On: t.OnDialog, Timeout: t.DialogTimeout}
	if a != nil && a.OnDialog != "" {
		p.On = a.OnDialog
	}
	if a != nil && a.DialogTimeout > 0 {
		p.Timeout = a.DialogTimeout
	}
	if p.On == "" {
		p.On = DefaultOnDialog
	}
	if p.Timeout <= 0 {
		p.Timeout = DefaultDialogTimeout
	}
	return p
}
