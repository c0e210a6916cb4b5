package supervisor

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/fakeagent"
	_ "github.com/wardenhq/warden/internal/fakeagent/hooked" // the "hooked" mode
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
)

func TestMain(m *testing.M) {
	fakeagent.Main()
	quietReaper()
	os.Exit(m.Run())
}

// quietReaper starts the runner's reaper, which keeps the logger of the
// first process started, with one of its own: with a test's, an orphan of a
// real CLI reaped after that test ended would log into it (a panic).
func quietReaper() {
	log := hclog.New(&hclog.LoggerOptions{Name: "test", Level: hclog.Warn, Output: os.Stderr})
	if p, err := runner.Start(log, runner.Config{Name: "reaper", Argv: []string{"true"}, Output: io.Discard}); err == nil {
		p.Wait()
	}
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
	dir := t.TempDir()
	var b strings.Builder
	fmt.Fprintf(&b, "name = %q\n%s\n", strings.ReplaceAll(t.Name(), "/", "_"), header)
	for _, a := range agents {
		argv := fakeagent.Command(a.mode)
		q := make([]string, len(argv))
		for i, s := range argv {
			q[i] = fmt.Sprintf("%q", s)
		}
		fmt.Fprintf(&b, "\n[[agent]]\nname = %q\ncommand = [%s]\n", a.name, strings.Join(q, ", "))
		fmt.Fprintf(&b, "env = {")
		for i, kv := range fakeagent.Env(a.mode) {
			k, v, _ := strings.Cut(kv, "=")
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s = %q", k, v)
		}
		b.WriteString("}\n")
		if a.profile != "" {
			fmt.Fprintf(&b, "profile = %q\n", a.profile)
		}
		if a.lead {
			b.WriteString("lead = true\n")
		}
		if a.dir != "" {
			fmt.Fprintf(&b, "dir = %q\n", a.dir)
		}
		if a.restart != "" {
			fmt.Fprintf(&b, "restart = %q\nmax_restarts = %d\n", a.restart, a.maxRestarts)
		}
	}
	path := filepath.Join(dir, "team.toml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("team file:\n%s\n%v", b.String(), err)
	}
	return cfg
}

func testLogger(t testing.TB) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: t.Name(), Level: hclog.Debug, Output: testWriter{t}})
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// eventsOf returns the events of a state dir as (event, agent) pairs.
func eventsOf(t *testing.T, cfg *config.Team) []map[string]any {
	t.Helper()
	return readEvents(t, cfg.StateDir)
}

// readEvents returns the events of the state dir at root.
func readEvents(t testing.TB, root string) []map[string]any {
	t.Helper()
	evs, err := state.ReadEvents(state.NewLayout(root).Events())
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// readSnapshot reads state.json of the state dir at root.
func readSnapshot(t *testing.T, root string) *state.Snapshot {
	t.Helper()
	s, err := state.ReadSnapshot(root)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// eventTime is an event's ts (the test fails on an event that is missing).
func eventTime(t testing.TB, e map[string]any) time.Time {
	t.Helper()
	if e == nil {
		t.Fatal("no such event")
	}
	at, err := time.Parse(time.RFC3339Nano, e["ts"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func countEvents(evs []map[string]any, event, agent string) int {
	n := 0
	for _, e := range evs {
		if e["event"] == event && (agent == "" || e["agent"] == agent) {
			n++
		}
	}
	return n
}

// firstEvent returns the first event of that name, or nil.
func firstEvent(evs []map[string]any, event string) map[string]any {
	for _, e := range evs {
		if e["event"] == event {
			return e
		}
	}
	return nil
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

// whileWaiting returns agent's events from its first agent_waiting up to
// its agent_resumed, or to the end.
func whileWaiting(evs []map[string]any, agent string) []map[string]any {
	var out []map[string]any
	in := false
	for _, e := range evs {
		if e["agent"] != agent {
			continue
		}
		switch {
		case e["event"] == event.AgentWaiting:
			in = true
		case e["event"] == event.AgentResumed && in:
			return out
		case in:
			out = append(out, e)
		}
	}
	return out
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
