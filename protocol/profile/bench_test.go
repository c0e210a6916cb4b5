//go:build e2e

package profile

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkCheckpointRequests: per real CLI, N checkpoint requests
// (WARDEN_BENCH_REQUESTS, default 20) typed with Submit at turn boundaries
// and answered by the fake provider with a block. Reports how many were
// submitted (reached the provider exactly once) and answered (the block's
// last line drawn on screen), and the median Submit latency (typing to
// turn started, including the 700 ms pause before Enter).
func BenchmarkCheckpointRequests(b *testing.B) {
	n := 20
	if v, err := strconv.Atoi(os.Getenv("WARDEN_BENCH_REQUESTS")); err == nil && v > 0 {
		n = v
	}
	// Codex also as warden runs it by default: its TUI attached to its
	// app-server.
	for _, cli := range append(slices.Clone(cliNames), "codex+app-server") {
		b.Run(cli, func(b *testing.B) {
			for range b.N {
				submitted, answeredN, median := benchCLI(b, cli, n)
				b.ReportMetric(float64(submitted), "submitted")
				b.ReportMetric(float64(answeredN), "answered")
				b.ReportMetric(float64(n), "requests")
				b.ReportMetric(float64(median.Milliseconds()), "median-submit-ms")
			}
		})
	}
}

func benchCLI(b *testing.B, cli string, n int) (submitted, answeredN int, median time.Duration) {
	b.StopTimer()
	s := startCLI(b, cli, answer)
	s.waitScreen("ready prompt", cliStartWait, s.p.Ready)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(n)*20*time.Second)
	defer cancel()
	b.StartTimer()
	var lat []time.Duration
	for i := 1; i <= n; i++ {
		task := fmt.Sprintf("T%03d", i)
		s.waitScreen("turn boundary", 30*time.Second, s.p.TurnEnded)
		start := time.Now()
		if err := s.p.Submit(ctx, s.ptmx, s.screen, "CHECKPOINT REQUEST: "+task); err != nil {
			b.Logf("%s: %s: %v", cli, task, err)
			continue
		}
		lat = append(lat, time.Since(start))
		if waitUntil(30*time.Second, func() bool {
			sc := s.screen()
			return answered(s.p, sc, "Resume: answered "+task) && s.p.TurnEnded(sc)
		}) {
			answeredN++
		}
		if s.turns("CHECKPOINT REQUEST: "+task) == 1 {
			submitted++
		}
	}
	b.StopTimer()
	if err := s.quit(); err != nil {
		b.Errorf("%s: quit: %v", cli, err)
	}
	if len(lat) > 0 {
		slices.Sort(lat)
		median = lat[len(lat)/2]
	}
	if submitted != n || answeredN != n {
		b.Errorf("%s: %d of %d submitted, %d answered", cli, submitted, n, answeredN)
	}
	return submitted, answeredN, median
}

func waitUntil(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}
