//go:build e2e

package realclis

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/testrig/fakeprovider"
	"github.com/wardenhq/warden/testrig/proctest"
	"github.com/wardenhq/warden/testrig/teamtest"
)

// sameAnswer is the block the model answers to every checkpoint request of
// the long run: an agent that is not moving.
const sameAnswer = "CHECKPOINT: %s\nStatus: implementing\nCompleted:\n- read the task\nRemaining:\n- write the parser\n" +
	"Files Modified: none\nEstimated Progress: 10%%\n"

// BenchmarkRealCLILongSameAnswer is issue 35's "an answer is an answer":
// every real CLI at once, each an agent of one team under warden (one task
// each, pinned), offline against a fake provider of its own, for
// WARDEN_LONG_MINUTES (default 2) with checkpoint_interval = "15s"; the
// model answers every checkpoint request with the same block, so the
// transcript scrolls with identical answers. Per CLI it logs the requests
// typed (checkpoint_requested), the requests the model answered (the
// provider's side), the answers recorded (checkpoint_received),
// checkpoint_timeout, checkpoint_rejected, restarts, agent_stale and
// agent_stalled, and fails unless every request answered before the last
// checkpoint_timeout was recorded, with no timeout for an answered
// request and no restart. WARDEN_LONG_CLIS picks the CLIs (default all
// six); warden's log goes to a file named in the benchmark's log, and with
// WARDEN_ARTIFACTS set, it and the sessions' logs and recordings are kept there.
func BenchmarkRealCLILongSameAnswer(b *testing.B) {
	minutes, err := strconv.ParseFloat(cmpOr(os.Getenv("WARDEN_LONG_MINUTES"), "2"), 64)
	if err != nil || minutes <= 0 {
		b.Fatalf("WARDEN_LONG_MINUTES=%q: want minutes", os.Getenv("WARDEN_LONG_MINUTES"))
	}
	clis := strings.Split(cmpOr(os.Getenv("WARDEN_LONG_CLIS"), "claude,codex,gemini,opencode,qwen,copilot"), ",")
	warden, err := buildWarden()
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv("WARDEN_BIN", warden)
	defer proctest.AssertNone(b)
	for i := 0; i < b.N; i++ {
		longSameAnswer(b, clis, time.Duration(minutes*float64(time.Minute)))
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// longModel is one CLI's fake provider: it counts the checkpoint requests
// that reached it and when each was answered.
type longModel struct {
	task string
	srv  *fakeprovider.Server

	mu       sync.Mutex
	answered []time.Time
}

func (m *longModel) decide(r fakeprovider.Request) fakeprovider.Answer {
	if !strings.Contains(r.Prompt, "CHECKPOINT REQUEST: "+m.task) {
		return fakeprovider.Answer{Text: "ready", InputTokens: 5000}
	}
	m.mu.Lock()
	m.answered = append(m.answered, time.Now())
	m.mu.Unlock()
	return fakeprovider.Answer{Text: fmt.Sprintf(sameAnswer, m.task), InputTokens: 5000}
}

// answeredBefore counts the requests answered before t, and all of them.
func (m *longModel) answeredBefore(t time.Time) (before, all int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, at := range m.answered {
		if at.Before(t) {
			before++
		}
	}
	return before, len(m.answered)
}

func longSameAnswer(b *testing.B, clis []string, d time.Duration) {
	logPath := filepath.Join(cmpOr(os.Getenv("WARDEN_ARTIFACTS"), b.TempDir()), fmt.Sprintf("long-same-answer-%d.log", time.Now().Unix()))
	logFile, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	defer logFile.Close()
	b.Logf("warden's log: %s", logPath)
	logger := hclog.New(&hclog.LoggerOptions{Name: "long", Level: hclog.Info, Output: logFile})

	var header strings.Builder
	header.WriteString(`checkpoint_interval = "15s"
shutdown_timeout = "10s"
`)
	agents := make([]teamtest.Agent, len(clis))
	models := make([]*longModel, len(clis))
	for i, cli := range clis {
		agents[i] = teamtest.Agent{Name: cli, Mode: "unused"}
		models[i] = &longModel{task: fmt.Sprintf("T%d", i+1)}
		models[i].srv = fakeprovider.New(logger, fakeprovider.Script{Decide: models[i].decide})
		defer models[i].srv.Close()
		fmt.Fprintf(&header, "[[task]]\nid = %q\nprompt = \"Say ready.\"\nagent = %q\n", models[i].task, cli)
	}
	cfg := teamtest.WriteTeam(b, header.String(), agents...)
	for i, cli := range clis {
		bin := realCLI(b, cli)
		root, _ := filepath.EvalSymlinks(b.TempDir())
		home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
		os.MkdirAll(home, 0o700)
		os.MkdirAll(project, 0o700)
		env := seed(b, cli, home, project, models[i].srv.URL())
		a := &cfg.Agents[i]
		env["HOME"], env["LANG"], env["TZ"], env["CI"] = home, "C.UTF-8", "UTC", "false"
		env["WARDEN_TEST_OWNER"] = a.Env["WARDEN_TEST_OWNER"]
		a.Command, a.Profile, a.Dir, a.Env = []string{bin}, cli, project, env
	}

	team, _, wait := startTeamLogged(b, cfg, logger)
	start := time.Now()
	time.Sleep(d)
	stop := time.Now()
	team.Force()
	wait()
	if dir := os.Getenv("WARDEN_ARTIFACTS"); dir != "" { // the sessions' logs and recordings, to look at
		keep := filepath.Join(dir, fmt.Sprintf("long-same-answer-%d", start.Unix()))
		if err := os.CopyFS(keep, os.DirFS(filepath.Join(cfg.StateDir, "logs"))); err != nil {
			b.Logf("keeping the logs: %v", err)
		}
		b.Logf("the sessions' logs and recordings: %s", keep)
	}

	evs := eventsOf(b, cfg)
	// A request answered within checkpoint_timeout of the stop may still
	// be on its way to the screen: it is counted, not required.
	settled := stop.Add(-cfg.CheckpointTimeout)
	// The table goes to stdout: a benchmark's log is cut at its first lines.
	fmt.Printf("%.1f min, checkpoint_interval 15s, checkpoint_timeout %s, the same block every time\n", d.Minutes(), cfg.CheckpointTimeout)
	fmt.Printf("%-9s %6s %9s %9s %8s %8s %9s %6s %6s\n", "cli", "typed", "answered", "recorded", "timeout", "rejected", "restarts", "stale", "stalled")
	for i, cli := range clis {
		before, all := models[i].answeredBefore(settled)
		typed := countEvents(evs, event.CheckpointRequested, cli)
		recorded := countEvents(evs, event.CheckpointReceived, cli)
		timeouts := countEvents(evs, event.CheckpointTimeout, cli)
		rejected := countEvents(evs, event.CheckpointRejected, cli)
		restarts := countEvents(evs, event.AgentStarted, cli) - 1
		stale, stalled := countEvents(evs, event.AgentStale, cli), countEvents(evs, event.AgentStalled, cli)
		fmt.Printf("%-9s %6d %9d %9d %8d %8d %9d %6d %6d\n", cli, typed, all, recorded, timeouts, rejected, restarts, stale, stalled)
		b.ReportMetric(float64(recorded), cli+"-recorded")
		b.ReportMetric(float64(all), cli+"-answered")
		switch {
		case all == 0:
			b.Errorf("%s: no checkpoint request reached the model", cli)
		case recorded < before || recorded > all:
			b.Errorf("%s: %d answers recorded of %d the model gave (%d before the last %s)", cli, recorded, all, before, cfg.CheckpointTimeout)
		}
		if timeouts+rejected+restarts+stale+stalled > 0 {
			b.Errorf("%s: %d checkpoint_timeout, %d checkpoint_rejected, %d restarts, %d agent_stale, %d agent_stalled: want none",
				cli, timeouts, rejected, restarts, stale, stalled)
		}
	}
}
