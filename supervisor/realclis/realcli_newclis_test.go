//go:build e2e

package realclis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/internal/teamtest"
	"github.com/wardenhq/warden/supervisor/event"
)

// TestRealNewCLIUsageLimit: the real OpenCode, Qwen Code and Copilot CLI
// meet a used-up quota (HTTP 429 insufficient_quota from the fake Chat
// Completions API, its reset five hours away) on a checkpoint request.
// warden reads the CLI's own limit screen — Qwen's "✕ Quota exhausted: …",
// OpenCode's "… [retrying in 4h 59m attempt #1]", Copilot's "✗ 429 …" —
// and pauses the agent: a
// usage_limit_wait event and its WARNING, no stale alarm, no stall, no
// restart while it waits, past stale_failure.
func TestRealNewCLIUsageLimit(t *testing.T) {
	realCLIsTwoAtOnce(t, []string{"opencode", "qwen", "copilot"}, func(t *testing.T, cli string) {
		{
			bin := realCLI(t, cli)
			// The quota is used up from the first checkpoint request on.
			srv := fakeprovider.New(testLogger(t), fakeprovider.Script{Decide: func(r fakeprovider.Request) fakeprovider.Answer {
				if strings.Contains(r.Prompt, "CHECKPOINT REQUEST: T1") {
					return fakeprovider.Answer{Limit: &fakeprovider.Limit{Kind: fakeprovider.UsageLimit, ResetIn: 5 * time.Hour}}
				}
				return fakeprovider.Answer{Text: "ready"}
			}})
			defer srv.Close()
			root, _ := filepath.EvalSymlinks(t.TempDir())
			home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
			os.MkdirAll(home, 0o700)
			os.MkdirAll(project, 0o700)
			env := seed(t, cli, home, project, srv.URL())
			cfg := teamtest.WriteTeam(t, `checkpoint_interval = "3s"
checkpoint_timeout = "60s"
stale_warning = "4s"
stale_failure = "6s"
shutdown_timeout = "10s"
[[task]]
id = "T1"
prompt = "Say ready."
`, teamtest.Agent{Name: cli, Mode: "unused"})
			a := &cfg.Agents[0]
			env["HOME"], env["LANG"], env["TZ"], env["CI"] = home, "C.UTF-8", "UTC", "false"
			env["WARDEN_TEST_OWNER"] = a.Env["WARDEN_TEST_OWNER"]
			a.Command, a.Profile, a.Dir, a.Env = []string{bin}, cli, project, env

			team, out, wait := startTeamCfg(t, cfg)
			waitForD(t, "the pause", 120*time.Second, func() bool { return countEvents(eventsOf(t, cfg), event.UsageLimitWait, cli) == 1 })
			paused := time.Now()
			time.Sleep(8 * time.Second) // past stale_failure
			team.Force()
			wait()
			evs := eventsOf(t, cfg)
			if countEvents(evs, event.AgentStalled, cli) != 0 || countEvents(evs, event.AgentStarted, cli) != 1 {
				t.Errorf("the paused agent was treated as stalled or restarted: %v", evs)
			}
			for _, ev := range []string{event.AgentStale, event.AgentWarned} {
				for _, e := range evs {
					if e["event"] == ev && eventTime(t, e).After(paused) {
						t.Errorf("%s while paused at the limit: %v", ev, e)
					}
				}
			}
			if !strings.Contains(out.String(), "WARNING: "+cli+" hit a usage limit; waiting until") {
				t.Errorf("stdout:\n%s", out.String())
			}
		}
	})
}
