package supervisor

import (
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/agent"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/session"
	"github.com/wardenhq/warden/supervisor/state"
)

// usageLimitMargin is added to a usage limit's reset (the end of the
// minute a CLI shows) before the account's agents go on.
const usageLimitMargin = 30 * time.Second

// sessionTimers are the team file's timers, as the agents' sessions run by
// them (Deps.Timers).
func sessionTimers(c *config.Team) session.Timers {
	return session.Timers{CheckpointInterval: c.CheckpointInterval, CheckpointTimeout: c.CheckpointTimeout,
		StaleWarning: c.StaleWarning, StaleFailure: c.StaleFailure, ShutdownTimeout: c.ShutdownTimeout,
		UsageLimitWait: c.UsageLimitWait, UsageLimitMargin: usageLimitMargin}
}

// agentTeam is the team as its agents see it (agent.Team).
type agentTeam struct{ t *Team }

var _ agent.Team = agentTeam{}

func (a agentTeam) Printf(agent, format string, args ...any) { a.t.printfAbout(agent, format, args...) }

func (a agentTeam) Publish() { a.t.publish() }

// TeamCheckpoint is how agents ask for a team checkpoint.
func (a agentTeam) TeamCheckpoint(source, reason, lead string) {
	a.t.trigger(trigger{source: source, cause: source, reason: reason, lead: lead})
}

// CanTake reports whether an agent other than except, still at work (not
// failed, exited or stopped), may take task.
func (a agentTeam) CanTake(task config.Task, except string) bool {
	for _, ag := range a.t.agents {
		if ag.Name() == except || (task.Agent != "" && task.Agent != ag.Name()) {
			continue
		}
		switch ag.Status().State {
		case state.Failed, state.Exited, state.Stopped:
		default:
			return true
		}
	}
	return false
}

// Pinned is the record --from chose for task, or nil.
func (a agentTeam) Pinned(task string) *protocol.Checkpoint {
	if v, ok := a.t.pinned.Load(task); ok {
		return v.(*protocol.Checkpoint)
	}
	return nil
}
