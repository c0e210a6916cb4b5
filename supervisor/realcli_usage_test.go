//go:build e2e

package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/event"
)

// TestRealCLITokensThroughWarden runs each real CLI as a team agent against
// the fake provider for a couple of turns (its first prompt, two checkpoint
// requests, then it is stopped): the tokens warden reads from the CLI's own files — state.json's
// run, agent and task, and the session's last record, completed once its
// process ended — equal exactly what the provider served the CLI (its
// ledger, side calls such as titles and Gemini's router left out), and the
// dollars are Claude Code's own price (its status line) or the [[price]]
// row's for Codex and Gemini CLI.
func TestRealCLITokensThroughWarden(t *testing.T) {
	for _, cli := range []string{"claude", "codex", "gemini"} {
		t.Run(cli, func(t *testing.T) { testRealTokensThroughWarden(t, cli) })
	}
}

func testRealTokensThroughWarden(t *testing.T, cli string) {
	bin := realCLI(t, cli)
	useWardenBin(t)
	defer proctest.AssertNone(t)

	// After the second checkpoint answer the provider holds every request
	// until the test ends: no answer is under way when the team is stopped
	// (one the CLI got but had not written when it was killed would be
	// served and in no file).
	var mu sync.Mutex
	n, answers := 0, 0
	gate := make(chan struct{})
	srv := fakeprovider.New(testLogger(t), fakeprovider.Script{Decide: func(r fakeprovider.Request) fakeprovider.Answer {
		mu.Lock()
		if answers >= 2 {
			mu.Unlock()
			<-gate
			return fakeprovider.Answer{Text: "late"}
		}
		n++
		k := n
		if strings.Contains(r.Prompt, "CHECKPOINT REQUEST: T1") {
			answers++
		}
		mu.Unlock()
		// Figures that differ per request, the cached part inside the input.
		a := fakeprovider.Answer{Text: "ready", InputTokens: 9000 + 1000*k + k, CachedTokens: 4000 + k, OutputTokens: 30 + k}
		if cli == "claude" {
			a.CacheWriteTokens = 200 + k // only the Anthropic API reports cache writes
		}
		if strings.Contains(r.Prompt, "CHECKPOINT REQUEST: T1") {
			a.Text = fmt.Sprintf("CHECKPOINT: T1\nStatus: implementing\nCompleted:\n- step %d\nRemaining:\n- more\n"+
				"Files Modified: a.go\nEstimated Progress: %d%%\n", k, 10+k)
		}
		return a
	}})
	defer srv.Close()
	defer close(gate)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	os.MkdirAll(home, 0o700)
	os.MkdirAll(project, 0o700)
	env := seed(t, cli, home, project, srv.URL())
	cfg := writeTeamB(t, `checkpoint_interval = "2s"
checkpoint_timeout = "30s"
shutdown_timeout = "3s"
[[price]]
model = "*"
input = 2
cached_input = 0.5
output = 10
[[task]]
id = "T1"
prompt = "Say ready."
`, fakeAgent{name: cli, mode: "unused"})
	a := &cfg.Agents[0]
	env["HOME"], env["LANG"], env["TZ"], env["CI"] = home, "C.UTF-8", "UTC", "false"
	env["WARDEN_TEST_OWNER"] = a.Env["WARDEN_TEST_OWNER"]
	a.Command, a.Profile, a.Dir, a.Env = []string{bin}, cli, project, env

	served := func() protocol.Tokens {
		u := srv.Ledger().Main().Served()
		return protocol.Tokens{Input: int64(u.Input), CachedInput: int64(u.CachedInput), CacheWrite: int64(u.CacheWrite), Output: int64(u.Output)}
	}
	team, _, wait := startTeamCfg(t, cfg)
	waitForD(t, "two checkpoint records", 90*time.Second, func() bool {
		return countEvents(eventsOf(t, cfg), event.CheckpointReceived, cli) >= 2
	})
	waitForD(t, "warden's figure equal to the provider's", 20*time.Second, func() bool {
		u, _ := team.spendNow()
		return u != nil && u.Tokens == served()
	})
	team.Force()
	wait()

	want := served()
	snap := readSnapshot(t, cfg.StateDir)
	for what, u := range map[string]*protocol.Usage{"the run": snap.Usage, "the agent": snap.Agents[0].Usage, "the task": snap.Tasks[0].Usage} {
		if u == nil || u.Tokens != want {
			t.Errorf("%s spent %+v, the provider served %+v", what, u, want)
		}
	}
	cp, err := team.store.Load(cli, "T1")
	if err != nil || cp == nil || cp.Usage == nil || cp.Usage.Tokens != want {
		t.Fatalf("the last record's usage %+v (%v), the provider served %+v", cp, err, want)
	}
	t.Logf("%s: %d requests served, %+v, $%.4f", cli, len(srv.Ledger().Main()), want, cp.Usage.Dollars())
	wantFrom := protocol.CostFromPrice
	if cli == "claude" {
		wantFrom = protocol.CostFromCLI
	}
	if u := cp.Usage; u.CostUSD == nil || *u.CostUSD <= 0 || u.CostFrom != wantFrom || len(u.Unpriced) > 0 {
		t.Errorf("the session's cost %v from %q (unpriced %v), want one from %q", u.CostUSD, u.CostFrom, u.Unpriced, wantFrom)
	}
	if u := snap.Usage; u.CostUSD == nil || *u.CostUSD != *cp.Usage.CostUSD {
		t.Errorf("the run's cost %v, its one session's %v", u.CostUSD, cp.Usage.CostUSD)
	}
}
