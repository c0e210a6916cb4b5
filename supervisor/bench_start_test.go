//go:build e2e

package supervisor

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/state"
)

// BenchmarkTeamStart100: a team of 100 plain agents (fakeagent idle, no
// tasks): from Run until every agent runs (its runner started), then the team
// is stopped; cpu-ms is the supervisor's CPU time meanwhile. The runner's own starts are BenchmarkStart in runner/; this is
// what the supervisor adds around them (sessions, logs, recordings, state).
//
// go test -tags e2e -run '^$' -bench TeamStart100 -benchtime 5x ./supervisor/
func BenchmarkTeamStart100(b *testing.B) {
	defer proctest.AssertNone(b)
	var agents []fakeAgent
	for i := range 100 {
		agents = append(agents, fakeAgent{name: fmt.Sprintf("a%03d", i), mode: "idle", restart: "never"})
	}
	var total, cpu time.Duration
	n := 0
	for b.Loop() {
		cfg := writeTeamB(b, `shutdown_timeout = "1s"`+"\n", agents...)
		team, err := New(hclog.NewNullLogger(), cfg, clock.Real{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		done := make(chan Result)
		t0, c0 := time.Now(), cpuTime()
		go func() { done <- runWithEdges(team) }()
		total += waitUntil(b, "100 agents running", func() bool { return allStarted(team) }).Sub(t0)
		cpu += cpuTime() - c0
		n++
		b.StopTimer()
		team.Stop(true)
		<-done
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(n), "running-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(n), "cpu-ms")
}

// cpuTime is this process's user+system CPU time (the agents' not counted).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// allStarted reports whether every agent's process runs (with or without a
// task: these agents have none).
func allStarted(team *Team) bool {
	for _, a := range team.agents {
		if a.Status().State != state.Running {
			return false
		}
	}
	return true
}
