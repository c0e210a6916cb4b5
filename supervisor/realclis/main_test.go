//go:build e2e

// Package realclis runs the real agent CLIs (Claude Code, Codex CLI, Gemini
// CLI, OpenCode, Qwen Code, GitHub Copilot CLI) as a team's agents under the
// supervisor, offline against the fake provider. It is a package of its own
// so that `go test -tags e2e ./...` runs these minutes of real CLIs beside the
// supervisor's other tests, not after them.
package realclis

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/teamtest"
)

func TestMain(m *testing.M) {
	fakeagent.Main()
	teamtest.QuietReaper()
	os.Exit(m.Run())
}

var (
	testLogger   = teamtest.Logger
	eventsOf     = teamtest.EventsOf
	readEvents   = teamtest.ReadEvents
	readSnapshot = teamtest.ReadSnapshot
	eventTime    = teamtest.EventTime
	countEvents  = teamtest.CountEvents
	firstEvent   = teamtest.FirstEvent
	whileWaiting = teamtest.WhileWaiting
	waitForD     = teamtest.WaitFor
	realCLI      = teamtest.RealCLI
	seed         = teamtest.Seed
	buildWarden  = teamtest.BuildWarden
)

// startTeamCfg runs the team of cfg in the background, as cmd/warden does
// (its edges beside it); wait returns its result. A test that fails before
// it waits still ends its team.
func startTeamCfg(t testing.TB, cfg *config.Team) (*supervisor.Team, *teamtest.Buffer, func() supervisor.Result) {
	t.Helper()
	return startTeamLogged(t, cfg, testLogger(t))
}

// startTeamLogged is startTeamCfg with warden's log going to logger.
func startTeamLogged(t testing.TB, cfg *config.Team, logger hclog.Logger) (*supervisor.Team, *teamtest.Buffer, func() supervisor.Result) {
	t.Helper()
	out := &teamtest.Buffer{}
	team, err := supervisor.New(logger, cfg, clock.Real{}, out)
	if err != nil {
		t.Fatal(err)
	}
	var res supervisor.Result
	done := make(chan struct{})
	go func() { res = runWithEdges(team); close(done) }()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			team.Force()
			<-done
		}
	})
	return team, out, func() supervisor.Result {
		select {
		case <-done:
			return res
		case <-time.After(30 * time.Second):
			team.Force()
			<-done
			t.Fatal("team did not end")
			return res
		}
	}
}

// runWithEdges runs team with its edges beside it, taken down once it
// returns, then Close.
func runWithEdges(team *supervisor.Team) supervisor.Result {
	edges := []*supervisor.Edge{team.SignalWatch(), team.HookServer(), team.ControlServer(), team.Dashboard(), team.Budget(), team.Keys()}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, e := range edges {
		wg.Go(func() { e.Run(ctx) })
	}
	res := team.Run()
	cancel()
	wg.Wait()
	team.Close()
	return res
}
