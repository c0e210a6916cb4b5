package supervisor

import (
	"os"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/account"
	"github.com/wardenhq/warden/supervisor/agent"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/queue"
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
		UsageLimitWait: c.UsageLimitWait, UsageLimitMargin: usageLimitMargin,
		IdleAfter: c.IdleAfter, IdleNudges: c.IdleNudges}
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

// newAccounts gathers the team's agents by account (agent.AccountOf: the
// account key, else the same CLI and config home): the first sign of a
// usage limit on any agent parks every agent of its account (DESIGN §6
// "Account").
func newAccounts(t *Team) *account.Accounts {
	at := agentTeam{t}
	accounts := account.NewAccounts(account.AccountsConfig{
		Clock: t.clock, Log: t.log.Named("accounts"), Timers: &t.deps.Timers, OnLimit: t.cfg.OnLimit,
		Emit:   func(name, ag string, kv ...any) { t.events.Emit(name, ag, "", kv...) },
		Printf: at.Printf,
		Exit:   t.exitAtLimit,
	})
	for _, a := range t.agents {
		accounts.Add(agent.AccountOf(a.Config(), os.Environ()), a)
	}
	return accounts
}

// exitAtLimit ends the run at an account's usage limit (on_limit =
// "checkpoint-exit"): a team checkpoint, then exit 0 whatever is open, so
// that a timer starts the next run after the reset and it carries this
// one on.
func (t *Team) exitAtLimit(reason string) {
	t.atLimit.Store(true)
	t.trigger(trigger{source: "usage_limit", cause: protocol.CauseUsageLimit, reason: reason})
}

// atLimitCode is the exit code of a run that ended at an account's usage
// limit: 0 with tasks still open (the next run carries them on), 1 when a
// task or an agent failed.
func (r Result) atLimitCode() int {
	for _, t := range r.Tasks {
		if t.State == queue.Failed {
			return 1
		}
	}
	for _, a := range r.Agents {
		if a.State == state.Failed {
			return 1
		}
	}
	return 0
}

// The team's memory (issue 24): max_running and memory_floor admit the
// agents' sessions in turn, memory_max is held by a cgroup or the RSS
// watch, and an OOM kill is agent_oom whatever the team file sets
// (supervisor/agent: memory.go and beside it). The team makes the services
// in New, closes them when its run ends, and shows them in ps and the page.

// memoryStatus is the team's memory for ps and the page (nil: the team
// file sets none of max_running, memory_floor, memory_max).
func (t *Team) memoryStatus() *state.MemoryStatus { return t.deps.Memory.Status() }
