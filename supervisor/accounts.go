package supervisor

import (
	"os"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/agent"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// newAccounts gathers the team's agents by account (agent.AccountOf: the
// account key, else the same CLI and config home): the first sign of a
// usage limit on any agent parks every agent of its account (DESIGN §6
// "Account").
func newAccounts(t *Team) *agent.Accounts {
	at := agentTeam{t}
	accounts := agent.NewAccounts(agent.AccountsConfig{
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
