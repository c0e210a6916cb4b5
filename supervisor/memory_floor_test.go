package supervisor

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/agent"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
)

// hclogFor is the test's logger, or warnings on stderr for a benchmark.
func hclogFor(t testing.TB) hclog.Logger {
	if tt, ok := t.(*testing.T); ok {
		return testLogger(tt)
	}
	return hclog.New(&hclog.LoggerOptions{Name: "figure", Level: hclog.Warn, Output: os.Stderr})
}

// floorRun is one run of the memory_floor figure: n plain agents, each
// holding mb MB (memory:hold=…), memory_floor leaving room for room of
// them as MemAvailable stands at the start.
type floorRun struct {
	n, mb, steps int
	room         float64
	// realMemory: the machine's MemAvailable (the figure, by hand); else
	// a stand-in that is a fixed total less what the agents' trees hold,
	// read as the RSS watch reads them (the test: the agents are real, the
	// machine's other tenants are not).
	realMemory bool
	fast       bool // learn and look again within 100s of ms (the test)
}

// floorResult is what the figure reports.
type floorResult struct {
	footprint, floor, start   int64 // one agent's tree; memory_floor; MemAvailable at the start
	most, ooms, waits, admits int
	complete, tasks           int
	took                      time.Duration
	learned                   int64 // plain's footprint as the page shows it at the end
	exit                      int
	stdout                    string
}

func (r floorRun) run(t testing.TB) floorResult {
	t.Helper()
	mode := fmt.Sprintf("memory:hold=%d:steps=%d", r.mb, r.steps)
	var res floorResult
	res.footprint = footprintOf(t, mode)
	var team *Team
	avail := agent.ReadMemAvailable
	if !r.realMemory {
		const total = 1 << 40
		avail = func() (int64, error) { return total - treeRSS(team), nil }
	}
	var err error
	if res.start, err = avail(); err != nil {
		t.Fatal(err)
	}
	res.floor = res.start - int64(r.room*float64(res.footprint))
	cfg := writeTeamB(t, memoryTimers+fmt.Sprintf("memory_floor = \"%dB\"\n", res.floor)+tasks(r.n), workers(r.n, mode)...)
	out := &syncBuffer{}
	if team, err = New(hclogFor(t), cfg, clock.Real{}, out); err != nil {
		t.Fatal(err)
	}
	m := team.deps.Memory
	m.MemAvailable = avail
	if r.fast {
		m.LearnAfter, m.SampleEvery, m.Poll = 300*time.Millisecond, 100*time.Millisecond, 100*time.Millisecond
	}
	began := time.Now()
	done := make(chan Result)
	go func() { done <- runWithEdges(team) }()
	var result Result
	select {
	case result = <-done:
	case <-time.After(10 * time.Minute):
		team.Stop(true)
		result = <-done
	}
	res.took, res.exit, res.stdout = time.Since(began), result.ExitCode(), out.String()
	evs, err := state.ReadEvents(state.NewLayout(cfg.StateDir).Events())
	if err != nil {
		t.Fatal(err)
	}
	res.most, res.tasks = mostAtOnce(evs), r.n
	res.ooms = countEvents(evs, event.AgentOOM, "")
	res.waits = countEvents(evs, event.AdmissionWaiting, "")
	res.admits = countEvents(evs, event.AgentAdmitted, "")
	res.complete = countEvents(evs, event.TaskCompleted, "")
	if st := m.Status(); st != nil {
		for _, f := range st.Footprints {
			if f.Profile == config.ProfilePlain && f.Learned {
				res.learned = f.Bytes
			}
		}
	}
	return res
}

// The test's size of the figure: 6 plain agents each holding 100 MB, with
// memory_floor leaving room for 2 (2.5 agents' worth above it): never more
// than 2 run at once, the others wait for memory (admission_waiting, state
// admission) and start as it frees, none is OOM-killed, every task
// completes, and the page shows plain's footprint learned from them.
func TestMemoryFloorAdmitsAsMemoryFrees(t *testing.T) {
	defer proctest.AssertNone(t)
	r := floorRun{n: 6, mb: 100, steps: 6, room: 2.5, fast: true}
	res := r.run(t)
	if res.exit != 0 || res.complete != r.n {
		t.Fatalf("exit %d, %d of %d tasks complete\n%s", res.exit, res.complete, r.n, res.stdout)
	}
	if res.most != 2 {
		t.Errorf("%d agents ran at once, want 2 (room for 2.5 of %d MB each)", res.most, res.footprint>>20)
	}
	if res.ooms != 0 {
		t.Errorf("%d agent_oom", res.ooms)
	}
	if res.waits < 4 || res.admits != res.waits {
		t.Errorf("%d admission_waiting, %d agent_admitted: want one of each for every agent that waited (at least 4)", res.waits, res.admits)
	}
	if lo, hi := res.footprint*8/10, res.footprint*3/2; res.learned < lo || res.learned > hi {
		t.Errorf("plain's footprint learned %d MB, want about the %d MB one agent holds", res.learned>>20, res.footprint>>20)
	}
	t.Logf("footprint %d MB, most at once %d, %d waits, %s", res.footprint>>20, res.most, res.waits, res.took.Round(time.Millisecond))
}

// The figure of issue 24, by hand: 30 plain agents each holding 400 MB,
// memory_floor leaving room for 8 as the machine's own MemAvailable stands
// at the start (floor = MemAvailable − 8.5 agents), the warden defaults
// (footprints learned once a session ran 10 s, the trees read every 2 s),
// each task about 13 s of checkpoints. It needs about 4 GB free and two
// minutes:
//
//	WARDEN_MEMORY_FIGURE=30:400:8.5 go test -run '^$' -bench MemoryFloorFigure -benchtime 1x ./supervisor/
func BenchmarkMemoryFloorFigure(b *testing.B) {
	spec := os.Getenv("WARDEN_MEMORY_FIGURE")
	if spec == "" {
		b.Skip("set WARDEN_MEMORY_FIGURE=AGENTS:MB:ROOM (the figure: 30:400:8.5); it holds AGENTS × MB of real memory")
	}
	f := strings.Split(spec, ":")
	if len(f) != 3 {
		b.Fatalf("WARDEN_MEMORY_FIGURE=%q: want AGENTS:MB:ROOM", spec)
	}
	n, _ := strconv.Atoi(f[0])
	mb, _ := strconv.Atoi(f[1])
	room, _ := strconv.ParseFloat(f[2], 64)
	for range b.N {
		res := floorRun{n: n, mb: mb, steps: 60, room: room, realMemory: true}.run(b)
		b.ReportMetric(float64(res.most), "most-at-once")
		b.ReportMetric(float64(res.ooms), "oom-kills")
		b.ReportMetric(float64(res.complete), "tasks-complete")
		b.ReportMetric(res.took.Seconds(), "s-run")
		b.Logf("%d agents × %d MB (footprint %d MB a tree), MemAvailable at start %d MB, memory_floor %d MB: "+
			"most at once %d, %d OOM kills, %d/%d tasks complete (exit %d), %d waits, plain's footprint learned %d MB, in %s",
			n, mb, res.footprint>>20, res.start>>20, res.floor>>20, res.most, res.ooms, res.complete, res.tasks, res.exit,
			res.waits, res.learned>>20, res.took.Round(time.Second))
	}
}
