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

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/fakeprovider"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
)

// nightWindows is how many usage-limit windows a compressed night has.
const nightWindows = 3

// BenchmarkRealCLINight is a night compressed into minutes: two agents of
// one account (the same real CLI, the same home) meet the account's usage
// limit three times, each window opened by a's checkpoint request, a few
// turns after the last reset. It reports the windows parked and resumed
// (3/3 each), restarts, stale alarms inside a park, requests that reached
// the provider from the account inside a window (refusals aside), and
// double resumes of a. Minutes per CLI: not in CI. WARDEN_NIGHT_CLIS picks
// the CLIs (default claude,codex,gemini).
func BenchmarkRealCLINight(b *testing.B) {
	clis := strings.Split(cmpOr(os.Getenv("WARDEN_NIGHT_CLIS"), "claude,codex,gemini"), ",")
	useWardenBin(b)
	for _, cli := range clis {
		b.Run(cli, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				night(b, cli)
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// nightRig is the provider's side: a's checkpoint request opens a window
// for a once a has had `every` checkpoint requests since the last reset.
type nightRig struct {
	cli string
	srv *fakeprovider.Server

	mu      sync.Mutex
	windows []*fakeprovider.LimitWindow
	hits    []fakeprovider.Request
	asked   int // a's checkpoint requests since the last window's reset
}

func (g *nightRig) decide(r fakeprovider.Request) fakeprovider.Answer {
	task := map[bool]string{true: "T2", false: "T1"}[r.Account == "b"]
	if !strings.Contains(r.Prompt, "CHECKPOINT REQUEST: "+task) {
		return fakeprovider.Answer{Text: "ready", InputTokens: 2000}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if r.Account == "a" && len(g.windows) < nightWindows {
		if n := len(g.windows); n == 0 || r.At.After(g.windows[n-1].ResetAt) {
			g.asked++
		}
		if g.asked >= 3 {
			reset := limitReset(g.cli, r.At)
			g.windows = append(g.windows, g.srv.AddLimitWindow(&fakeprovider.LimitWindow{From: r.At, For: reset.Sub(r.At),
				ResetAt: reset, Account: "a"}))
			g.hits, g.asked = append(g.hits, r), 0
			return fakeprovider.Answer{Limit: &fakeprovider.Limit{Kind: fakeprovider.UsageLimit, ResetAt: reset}}
		}
	}
	return fakeprovider.Answer{InputTokens: 3000, Text: "CHECKPOINT: " + task + "\nStatus: implementing\nCompleted:\n" +
		"- parsed the config\nRemaining:\n- write tests\nFiles Modified: a.go\nEstimated Progress: 40%\n"}
}

func (g *nightRig) window(i int) (*fakeprovider.LimitWindow, fakeprovider.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.windows[i], g.hits[i]
}

func night(b *testing.B, cli string) {
	bin := realCLI(b, cli)
	defer func() {
		if left := proctest.Leftovers(); len(left) > 0 {
			b.Errorf("%d processes left: %v", len(left), left)
		}
	}()
	g := &nightRig{cli: cli}
	logger := hclog.NewNullLogger()
	if os.Getenv("WARDEN_BENCH_LOG") != "" {
		logger = hclog.New(&hclog.LoggerOptions{Level: hclog.Debug, Output: os.Stderr})
	}
	g.srv = fakeprovider.New(logger, fakeprovider.Script{Decide: g.decide})
	defer g.srv.Close()
	root, _ := filepath.EvalSymlinks(b.TempDir())
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	os.MkdirAll(home, 0o700)
	os.MkdirAll(project, 0o700)
	cfg := writeTeamB(b, `checkpoint_interval = "3s"
checkpoint_timeout = "60s"
stale_warning = "15s"
stale_failure = "30s"
shutdown_timeout = "10s"
usage_limit_wait = "5m"
[[task]]
id = "T1"
agent = "a"
prompt = "Say ready."
[[task]]
id = "T2"
agent = "b"
prompt = "Say ready."
`, fakeAgent{name: "a", mode: "unused"}, fakeAgent{name: "b", mode: "unused"})
	for i, name := range []string{"a", "b"} {
		ag := &cfg.Agents[i]
		env := accountEnv(b, cli, home, project, g.srv.URL(), name)
		env["WARDEN_TEST_OWNER"] = ag.Env["WARDEN_TEST_OWNER"]
		ag.Command, ag.Profile, ag.Dir, ag.Env = []string{bin}, cli, project, env
	}
	team, err := New(logger, cfg, clock.Real{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	team.deps.Timers.UsageLimitMargin = 2 * time.Second
	done := make(chan Result, 1)
	go func() { done <- runWithEdges(team) }()
	var stopOnce sync.Once
	stop := func() { stopOnce.Do(func() { team.Force(); <-done }) }
	defer stop()

	events := func() []map[string]any {
		evs, _ := state.ReadEvents(state.NewLayout(cfg.StateDir).Events())
		return evs
	}
	nth := func(name string, n int) map[string]any {
		for _, e := range events() {
			if e["event"] == name {
				if n--; n == 0 {
					return e
				}
			}
		}
		return nil
	}
	at := func(e map[string]any) time.Time {
		t, _ := time.Parse(time.RFC3339Nano, fmt.Sprint(e["ts"]))
		return t
	}
	type span struct{ parked, reset, resumed time.Time }
	var spans []span
	start := time.Now()
	for i := 0; i < nightWindows; i++ {
		waitUntilD(b, fmt.Sprintf("park %d", i+1), 180*time.Second, func() bool { return nth(event.AccountParked, i+1) != nil })
		w, _ := g.window(i)
		g.srv.AddLimitWindow(&fakeprovider.LimitWindow{For: time.Until(w.ResetAt), ResetAt: w.ResetAt})
		waitUntilD(b, fmt.Sprintf("resume %d", i+1), time.Until(w.ResetAt)+40*time.Second, func() bool {
			return nth(event.AccountResumed, i+1) != nil
		})
		spans = append(spans, span{at(nth(event.AccountParked, i+1)), w.ResetAt, at(nth(event.AccountResumed, i+1))})
		// Both carry on: each answers a checkpoint after the reset.
		waitUntilD(b, fmt.Sprintf("both answering after reset %d", i+1), 180*time.Second, func() bool {
			n := map[string]int{}
			for _, e := range events() {
				if e["event"] == event.CheckpointReceived && at(e).After(w.ResetAt) {
					n[fmt.Sprint(e["agent"])]++
				}
			}
			return n["a"] > 0 && n["b"] > 0
		})
	}
	time.Sleep(3 * time.Second)
	stop()
	took := time.Since(start)

	evs := events()
	count := func(name string) int { return countEvents(evs, name, "") }
	stale, typed, doubles := 0, 0, 0
	for i, s := range spans {
		for _, e := range evs {
			if (e["event"] == event.AgentStale || e["event"] == event.AgentWarned) && at(e).After(s.parked) && at(e).Before(s.resumed) {
				stale++
			}
		}
		for _, r := range g.srv.Ledger().Between(s.parked, s.reset) {
			if !r.Refused {
				typed++
			}
		}
		end := time.Now()
		if i+1 < len(spans) {
			end = spans[i+1].parked
		}
		continues := 0
		for _, r := range g.srv.Ledger().Of("a").Between(s.reset, end) {
			if !r.Side && r.Status == 200 && (strings.TrimSpace(r.Prompt) == "continue" || strings.Contains(r.Prompt, "usage limit has reset")) {
				continues++
			}
		}
		if continues > 1 || (cli != "gemini" && continues == 0) {
			doubles += max(continues-1, 0)
			if continues == 0 {
				b.Errorf("window %d: a was not continued", i+1)
			}
		}
	}
	b.ReportMetric(float64(count(event.AccountParked)), "parked/night")
	b.ReportMetric(float64(count(event.AccountResumed)), "resumed/night")
	b.ReportMetric(float64(count(event.AgentRestarted)+count(event.AgentStalled)), "restarts")
	b.ReportMetric(float64(stale), "stale-in-park")
	b.ReportMetric(float64(typed), "sent-in-window")
	b.ReportMetric(float64(doubles), "double-resumes")
	b.ReportMetric(took.Seconds(), "night-s")
	if count(event.AccountParked) != nightWindows || count(event.AccountResumed) != nightWindows || typed != 0 || doubles != 0 ||
		stale != 0 || count(event.AgentRestarted) != 0 {
		b.Errorf("%s: parked %d, resumed %d, restarts %d, stale %d, sent in a window %d, double resumes %d", cli,
			count(event.AccountParked), count(event.AccountResumed), count(event.AgentRestarted), stale, typed, doubles)
	}
}

// waitUntilD polls cond every 50 ms for up to d.
func waitUntilD(b *testing.B, what string, d time.Duration, cond func() bool) {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	b.Fatalf("timed out waiting for %s", what)
}
