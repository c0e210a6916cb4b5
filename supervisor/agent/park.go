package agent

import (
	"os"
	"strings"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/config"
)

// Park holds the agent at its account's usage limit until Unpark (the
// account's Member): its session now, and any it starts meanwhile.
// state.json shows until as paused_until.
func (a *Agent) Park(until time.Time) { a.Hold(HoldAccount, until) }

// Unpark releases the account's hold: its limit has reset. The agent goes
// on unless another reason holds it (the team's budget).
func (a *Agent) Unpark() { a.Release(HoldAccount) }

// AccountOf is the account of an agent: its account key, else its CLI's
// account home (the profile's: Claude Code's CLAUDE_CONFIG_DIR or
// ~/.claude, Codex's CODEX_HOME or ~/.codex…) from the agent's env over
// environ; a plain agent has none ("").
func AccountOf(a config.Agent, environ []string) string {
	if a.Account != "" {
		return a.Account
	}
	return profile.AccountHome(a.Profile, func(k string) string {
		if v, ok := a.Env[k]; ok {
			return v
		}
		for i := len(environ) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(environ[i], k+"="); ok {
				return v
			}
		}
		return ""
	})
}

// Environ is warden's environment, which an agent's env is laid over.
func Environ() []string { return os.Environ() }
