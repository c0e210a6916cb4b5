//go:build e2e

package supervisor

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/fakeagent"
	_ "github.com/wardenhq/warden/internal/fakeagent/hooked" // the "hooked" mode
	"github.com/wardenhq/warden/internal/teamtest"
	"github.com/wardenhq/warden/supervisor/config"
)

func TestMain(m *testing.M) {
	fakeagent.Main()
	teamtest.QuietReaper()
	os.Exit(m.Run())
}

// fakeAgent is one [[agent]] running the test binary as a fake agent.
type fakeAgent struct {
	name, mode, restart string
	maxRestarts         int
	profile             string
	dir                 string // "" is the team file's dir
	lead                bool
}

// writeTeam writes a team file of fake agents into a temp dir and loads it
// through the real decoder.
func writeTeam(t *testing.T, header string, agents ...fakeAgent) *config.Team {
	return writeTeamB(t, header, agents...)
}

func writeTeamB(t testing.TB, header string, agents ...fakeAgent) *config.Team {
	t.Helper()
	as := make([]teamtest.Agent, len(agents))
	for i, a := range agents {
		as[i] = teamtest.Agent{Name: a.name, Mode: a.mode, Restart: a.restart, MaxRestarts: a.maxRestarts,
			Profile: a.profile, Dir: a.dir, Lead: a.lead}
	}
	return teamtest.WriteTeam(t, header, as...)
}

// runSkippingBackoff runs team on the fake clock clk, skipping every restart
// backoff as soon as an agent waits in one — the clock moves to the next
// timer due (a backoff, a session's settle) whenever one is pending —;
// between, it calls each (when set). It returns the team's result.
func runSkippingBackoff(team *Team, clk *clock.Fake, each func()) Result {
	done := make(chan Result)
	go func() { done <- runWithEdges(team) }()
	for {
		select {
		case res := <-done:
			return res
		case <-time.After(5 * time.Millisecond):
			if clk.Waiters() > 0 {
				clk.AdvanceToNext()
			} else if each != nil {
				each()
			}
		}
	}
}

// runWithEdges runs team as cmd/warden does: its edges beside it, taken
// down once it returns, then Close.
func runWithEdges(team *Team) Result {
	edges := []*Edge{team.SignalWatch(), team.HookServer(), team.ControlServer(), team.Dashboard(), team.Budget(), team.Keys()}
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
