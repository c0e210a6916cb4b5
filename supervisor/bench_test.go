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
	"github.com/wardenhq/warden/supervisor/store"
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
		mode = "blocks:" + strconv.Itoa(n) + ":200ms:" + stamps + ":tui"
		profile = "claude"
	}
	cfg := writeTeamB(b, `checkpoint_interval = "1h"
checkpoint_timeout = "1s"
shutdown_timeout = "1s"
[[task]]
id = "T1"
prompt = "Print blocks."
`, fakeAgent{name: "w1", mode: mode, profile: profile})
	team, err := New(hclog.NewNullLogger(), cfg, clock.Real{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	var recorded []time.Time
	team.onRecord = func(cp *store.Checkpoint, at time.Time) {
		mu.Lock()
		recorded = append(recorded, at)
		mu.Unlock()
	}
	done := make(chan Result)
	go func() { done <- team.Run() }()
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
		all = append(all, benchDetection(b, 30, true)...)
	}
	reportLatency(b, all)
}
