//go:build e2e

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/proctest"
)

// BenchmarkTakeBack measures how long a new warden takes, from its start,
// to take back every agent of a held team (holder = true) whose warden
// was killed with -9 mid-turn: 4 fake agents, each with a request in
// flight. ms/takeback is from the new warden's start to the last agent
// attached (its log line); the run is stopped after each, nothing left.
//
//	go test -tags e2e -run '^$' -bench BenchmarkTakeBack -benchtime 5x ./cmd/warden/
func BenchmarkTakeBack(b *testing.B) {
	defer proctest.AssertNone(b)
	agents := []string{"w1", "w2", "w3", "w4"}
	var total time.Duration
	for range b.N {
		b.StopTimer()
		mode := "worker:steps=1000:slow=200ms"
		team := heldTeam(b, "", mode, mode, mode, mode)
		state := filepath.Join(filepath.Dir(team), ".warden")
		cmd, out := runWarden(b, "run", team)
		out.waitFor(b, "CHECKPOINT: T4 - implementing", 1)
		inFlight(b, state, agents...)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		start := time.Now()
		cmd2, out2 := runWarden(b, "run", team)
		for {
			out2.mu.Lock()
			n := strings.Count(out2.stderr.String(), "agent attached:")
			out2.mu.Unlock()
			if n >= len(agents) {
				break
			}
			if time.Since(start) > 20*time.Second {
				b.Fatalf("not every agent taken back within 20 s:\n%s", out2.dump())
			}
			time.Sleep(time.Millisecond)
		}
		total += time.Since(start)
		if msg, err := warden("stop", team).CombinedOutput(); err != nil {
			b.Fatalf("warden stop: %v\n%s", err, msg)
		}
		cmd2.Wait()
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/takeback")
}
