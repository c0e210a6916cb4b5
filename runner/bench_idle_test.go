//go:build e2e

package runner

import (
	"os"
	"runtime/debug"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
)

// idleWindow is how long BenchmarkIdle counts wake-ups
// (WARDEN_BENCH_IDLE_WINDOW, a Go duration; default 20 s).
func idleWindow() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("WARDEN_BENCH_IDLE_WINDOW")); err == nil && d > 0 {
		return d
	}
	return 20 * time.Second
}

// BenchmarkIdle: 50 agents that print "ready" and sleep, runner and bare
// interleaved. Once all run and 2 s have passed: this process's wake-ups per
// second over the window (timeslices its threads were given, from
// /proc/self/task/*/schedstat), its CPU time over the window, OS threads and
// RSS. Nothing is due in the window, so every wake-up is overhead.
//
// It runs first (benchmarks run in file order): BenchmarkFanout's bare loop
// leaves ~50 parked OS threads behind that the Go runtime never releases.
//
// go test -tags e2e -run '^$' -bench Idle -benchtime 1x ./runner/
func BenchmarkIdle(b *testing.B) {
	const n = 50
	defer proctest.AssertNone(b)
	window := idleWindow()
	type acc struct{ wakeups, cpuMs, threads, rssMB float64 }
	var r, br acc
	i := 0
	for b.Loop() {
		for k := range 2 {
			start, a := startRunners, &r
			if (i+k)%2 == 0 {
				start, a = startBare, &br
			}
			tm := start(b, n)
			// Let start-up work settle; return freed memory now, so that the
			// runtime's background scavenger has nothing left to do.
			debug.FreeOSMemory()
			time.Sleep(2 * time.Second)
			w0, c0 := schedRuns(), cpuSeconds()
			time.Sleep(window)
			a.wakeups += float64(schedRuns()-w0) / window.Seconds()
			a.cpuMs += (cpuSeconds() - c0) * 1000
			a.threads += float64(selfStatus("Threads"))
			a.rssMB += float64(selfStatus("VmRSS")) / 1024
			tm.stop()
		}
		i++
	}
	runs := float64(i)
	b.ReportMetric(r.wakeups/runs, "wakeups/s")
	b.ReportMetric(br.wakeups/runs, "bare-wakeups/s")
	b.ReportMetric(r.cpuMs/runs, "cpu-ms/window")
	b.ReportMetric(br.cpuMs/runs, "bare-cpu-ms/window")
	b.ReportMetric(r.threads/runs, "threads")
	b.ReportMetric(br.threads/runs, "bare-threads")
	b.ReportMetric(r.rssMB/runs, "RSS-MB")
	b.ReportMetric(br.rssMB/runs, "bare-RSS-MB")
	b.ReportMetric(window.Seconds(), "window-s")
}
