//go:build e2e

package supervisor

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol"
)

// benchDetection runs one fake agent that prints n blocks unasked and
// returns, per block, the time from its last byte on the pty to its record
// renamed into place.
func benchDetection(b *testing.B, n int, tui bool) []time.Duration {
	stamps := filepath.Join(b.TempDir(), "stamps")
	mode := "blocks:" + strconv.Itoa(n) + ":30ms:" + stamps
	profile := ""
	if tui {
		// A TUI block is read once the screen has been quiet for the
		// profile's settle time: the blocks come further apart than that.
		mode = "blocks:" + strconv.Itoa(n) + ":500ms:" + stamps + ":tui"
		profile = "claude"
	}
	cfg := writeTeamB(b, `checkpoint_interval = "1h"
checkpoint_timeout = "1s"
shutdown_timeout = "1s"
[[task]]
id = "T1"
prompt = "Print blocks."
`, fakeAgent{name: "w1", mode: mode, profile: profile})
	logger := hclog.NewNullLogger()
	if os.Getenv("WARDEN_BENCH_LOG") != "" {
		logger = hclog.New(&hclog.LoggerOptions{Level: hclog.Debug, Output: os.Stderr})
	}
	team, err := New(logger, cfg, clock.Real{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	var recorded []time.Time
	team.OnRecord(func(cp *protocol.Checkpoint, at time.Time) {
		mu.Lock()
		recorded = append(recorded, at)
		mu.Unlock()
	})
	done := make(chan Result)
	go func() { done <- runWithEdges(team) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		mu.Lock()
		got := len(recorded)
		mu.Unlock()
		if got >= n || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	team.Stop(true)
	<-done
	data, _ := os.ReadFile(stamps)
	var out []time.Duration
	for i, s := range strings.Fields(string(data)) {
		ns, _ := strconv.ParseInt(s, 10, 64)
		if i < len(recorded) {
			out = append(out, recorded[i].Sub(time.Unix(0, ns)))
		}
	}
	if len(out) != n {
		b.Fatalf("%d of %d blocks recorded", len(out), n)
	}
	return out
}

func reportLatency(b *testing.B, d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	if testing.Verbose() {
		b.Logf("latencies: %v", d)
	}
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkDetectionPlain: last byte of a block on the pty → its record
// renamed into place, plain agent (target: median ≤ 20 ms, p99 ≤ 100 ms).
func BenchmarkDetectionPlain(b *testing.B) {
	var all []time.Duration
	for i := 0; i < b.N; i++ {
		all = append(all, benchDetection(b, 100, false)...)
	}
	reportLatency(b, all)
}

// BenchmarkDetectionTUI: the same for a block drawn with cursor moves on the
// alternate screen, read through the terminal emulator once the screen is
// quiet (target: ≤ 100 ms after the screen goes quiet).
func BenchmarkDetectionTUI(b *testing.B) {
	var all []time.Duration
	for i := 0; i < b.N; i++ {
		all = append(all, benchDetection(b, 20, true)...)
	}
	reportLatency(b, all)
}

// stampWriter records when each stdout line was written.
type stampWriter struct {
	mu    sync.Mutex
	lines []string
	at    []time.Time
}

func (w *stampWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		w.lines, w.at = append(w.lines, l), append(w.at, time.Now())
	}
	return len(p), nil
}

// when returns the time of the n-th line equal to line (from 1), or zero.
func (w *stampWriter) when(line string, n int) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, l := range w.lines {
		if l == line {
			if n--; n == 0 {
				return w.at[i]
			}
		}
	}
	return time.Time{}
}

func (w *stampWriter) count(prefix string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := 0
	for _, l := range w.lines {
		if strings.HasPrefix(l, prefix) {
			c++
		}
	}
	return c
}

// teamOf10 writes a team of 10 workers on 10 tasks with the given modes.
func teamOf10(b *testing.B, after string, modes func(i int) string) (*Team, *stampWriter) {
	var header strings.Builder
	header.WriteString(`checkpoint_interval = "1h"
checkpoint_timeout = "1s"
shutdown_timeout = "1s"
after_team_checkpoint = "` + after + `"
`)
	var agents []fakeAgent
	for i := 1; i <= 10; i++ {
		header.WriteString("[[task]]\nid = \"T" + strconv.Itoa(i) + "\"\nprompt = \"work\"\nagent = \"w" + strconv.Itoa(i) + "\"\n")
		agents = append(agents, fakeAgent{name: "w" + strconv.Itoa(i), mode: modes(i)})
	}
	cfg := writeTeamB(b, header.String(), agents...)
	out := &stampWriter{}
	team, err := New(hclog.NewNullLogger(), cfg, clock.Real{}, out)
	if err != nil {
		b.Fatal(err)
	}
	return team, out
}

// waitUntil polls cond every millisecond for up to 30 s.
func waitUntil(b *testing.B, what string, cond func() bool) time.Time {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if cond() {
			return time.Now()
		}
	}
	b.Fatalf("timed out waiting for %s", what)
	return time.Time{}
}

func allRunning(team *Team) bool {
	for _, a := range team.agents {
		if !a.Busy() {
			return false
		}
	}
	return true
}

// benchTeamCheckpoint measures trigger → CHECKPOINT COMPLETE for a team of 10.
func benchTeamCheckpoint(b *testing.B, modes func(i int) string, quiet bool) {
	var took []time.Duration
	for i := 0; i < b.N; i++ {
		team, out := teamOf10(b, "exit", modes)
		done := make(chan Result)
		go func() { done <- runWithEdges(team) }()
		waitUntil(b, "10 agents running", func() bool { return allRunning(team) })
		if !quiet {
			time.Sleep(300 * time.Millisecond) // the workers have read their prompts
		}
		t0 := time.Now()
		os.WriteFile(team.cfg.SignalFile, nil, 0o600)
		<-done
		t1 := out.when("CHECKPOINT COMPLETE", 1)
		if t1.IsZero() {
			b.Fatal("no CHECKPOINT COMPLETE")
		}
		took = append(took, t1.Sub(t0))
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	b.ReportMetric(float64(took[len(took)/2].Milliseconds()), "median-ms")
	b.ReportMetric(float64(took[len(took)-1].Milliseconds()), "max-ms")
}

// BenchmarkTeamCheckpointSilent: 10 agents that never answer, 5 of them
// ignoring SIGTERM; checkpoint_timeout = shutdown_timeout = 1s (target:
// ≤ 1s + 1s + 300 ms).
func BenchmarkTeamCheckpointSilent(b *testing.B) {
	benchTeamCheckpoint(b, func(i int) string {
		if i%2 == 0 {
			return "worker:silent=1:ignore=1"
		}
		return "worker:silent=1"
	}, true)
}

// BenchmarkTeamCheckpointAnswering: 10 agents that answer at once and quit
// when asked (target: ≤ 1 s).
func BenchmarkTeamCheckpointAnswering(b *testing.B) {
	benchTeamCheckpoint(b, func(int) string { return "worker:steps=1000" }, false)
}

// BenchmarkRehydrate: CHECKPOINT COMPLETE → every rehydrated agent running
// again (target: ≤ 500 ms).
func BenchmarkRehydrate(b *testing.B) {
	var took []time.Duration
	for i := 0; i < b.N; i++ {
		team, out := teamOf10(b, "rehydrate", func(int) string { return "worker:steps=1000" })
		done := make(chan Result)
		go func() { done <- runWithEdges(team) }()
		waitUntil(b, "10 agents running", func() bool { return allRunning(team) })
		time.Sleep(300 * time.Millisecond)
		os.WriteFile(team.cfg.SignalFile, nil, 0o600)
		waitUntil(b, "CHECKPOINT COMPLETE", func() bool { return !out.when("CHECKPOINT COMPLETE", 1).IsZero() })
		t1 := waitUntil(b, "10 agents running again", func() bool { return allRunning(team) })
		took = append(took, t1.Sub(out.when("CHECKPOINT COMPLETE", 1)))
		team.Force()
		<-done
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	b.ReportMetric(float64(took[len(took)/2].Milliseconds()), "median-ms")
	b.ReportMetric(float64(took[len(took)-1].Milliseconds()), "max-ms")
}
