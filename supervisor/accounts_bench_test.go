//go:build e2e

package supervisor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/hookbus"
)

// BenchmarkAccountParked: the first sign of a usage limit on one agent of
// an account — its status line's 5-hour window used up, handed to its
// session as the hook bus does — until every other agent of the account
// (ten fake CLIs, all busy) is parked with its process group stopped
// (target: ≤ 1 s). Each round the account resumes at the reset (2 s on,
// margin 0) and every group is continued before the next.
func BenchmarkAccountParked(b *testing.B) {
	const n = 10
	var header strings.Builder
	header.WriteString("checkpoint_interval = \"1h\"\ncheckpoint_timeout = \"5s\"\nshutdown_timeout = \"2s\"\n")
	var agents []fakeAgent
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&header, "[[task]]\nid = \"T%d\"\nprompt = \"work\"\nagent = \"w%d\"\n", i, i)
		agents = append(agents, fakeAgent{name: "w" + strconv.Itoa(i), mode: "hooked"})
	}
	cfg := writeTeamB(b, header.String(), agents...)
	for i := range cfg.Agents {
		cfg.Agents[i].Account = "work"
	}
	team, err := New(hclog.NewNullLogger(), cfg, clock.Real{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	team.deps.Timers.UsageLimitMargin = 0
	done := make(chan Result)
	go func() { done <- runWithEdges(team) }()
	defer func() { team.Force(); <-done }()
	waitUntil(b, "every agent busy", func() bool { return allRunning(team) })
	pids := make([]int, n)
	for i, a := range team.agents {
		pids[i] = a.Status().Pid
	}
	stopped := func(want bool) func() bool {
		return func() bool {
			for _, pid := range pids[1:] { // the first shows the limit itself: not stopped
				if (procState(pid) == 'T') != want {
					return false
				}
			}
			return true
		}
	}
	var took []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		reset := time.Now().Add(2 * time.Second).Truncate(time.Second).Add(time.Second)
		m := hookbus.Message{Agent: "w1", Kind: profile.KindClaudeStatus, At: time.Now(), Payload: []byte(fmt.Sprintf(
			`{"rate_limits": {"five_hour": {"used_percentage": 100, "resets_at": %d}}}`, reset.Unix()))}
		start := time.Now()
		team.agents[0].Session().Hook(m)
		took = append(took, waitUntil(b, "every agent of the account parked", stopped(true)).Sub(start))
		waitUntil(b, "the account resumed", stopped(false))
		waitUntil(b, "the first agent released", func() bool { return !team.agents[0].Session().Parked() })
	}
	b.StopTimer()
	reportLatency(b, took)
	b.ReportMetric(float64(slices.Max(took).Microseconds())/1000, "max-ms")
}
