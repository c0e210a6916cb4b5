//go:build e2e

package supervisor

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/event"
)

// memoryTimers ask every 200 ms; a silence of 3 s is stale.
const memoryTimers = `checkpoint_interval = "200ms"
checkpoint_timeout = "2s"
shutdown_timeout = "2s"
stale_warning = "3s"
stale_failure = "6s"
`

// tasks is n [[task]] tables, T1 … Tn.
func tasks(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\n[[task]]\nid = \"T%d\"\nprompt = \"Do part %d.\"\n", i, i)
	}
	return b.String()
}

// workers is n fake agents w1 … wn in mode.
func workers(n int, mode string) []fakeAgent {
	out := make([]fakeAgent, n)
	for i := range out {
		out[i] = fakeAgent{name: fmt.Sprintf("w%d", i+1), mode: mode}
	}
	return out
}

// max_running = 2 with five agents: never more than two run at once; the
// other three wait their turn — state admission, one admission_waiting
// each, agent_admitted when they start — and are never stale however long
// they wait; every task completes.
func TestAdmissionAtMaxRunningHoldsAgentsBack(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, memoryTimers+"max_running = 2\n"+tasks(5), workers(5, "worker:steps=8")...)
	saw := watchStates(t, cfg, "max_running 2")
	res, stdout, _ := runTeam(t, cfg, 60*time.Second)
	sawWaiting := saw()
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d, tasks %+v\n%s", res.ExitCode(), res.Tasks, stdout)
	}
	evs := eventsOf(t, cfg)
	if n := mostAtOnce(evs); n != 2 {
		t.Errorf("%d agents ran at once, want 2 (max_running)", n)
	}
	waits, admits := 0, 0
	waited := map[string]time.Time{}
	var longest time.Duration
	for _, e := range evs {
		switch e["event"] {
		case event.AdmissionWaiting:
			waits++
			waited[e["agent"].(string)] = eventTime(t, e)
			if e["reason"] != "max_running" || e["running"] != 2.0 || e["max_running"] != 2.0 || e["task"] == "" {
				t.Errorf("admission_waiting %v", e)
			}
		case event.AgentAdmitted:
			admits++
			since, ok := waited[e["agent"].(string)]
			if !ok || e["waited"] == "" {
				t.Errorf("agent_admitted without its wait: %v", e)
			}
			longest = max(longest, eventTime(t, e).Sub(since))
		case event.AgentStale, event.AgentStalled:
			t.Errorf("an agent was stale: %v", e)
		}
	}
	if longest <= cfg.StaleWarning {
		t.Errorf("the longest wait was %s, not above stale_warning %s: staleness not tried", longest, cfg.StaleWarning)
	}
	if waits != 3 || admits != 3 {
		t.Errorf("%d admission_waiting and %d agent_admitted, want 3 of each (one per wait, not per look)", waits, admits)
	}
	if !sawWaiting {
		t.Error("state.json never showed an agent in state admission, waiting for max_running")
	}
}

// treeRSS is what the trees of the team's agents hold now, read as the
// watch reads them.
func treeRSS(team *Team) int64 {
	var sum int64
	for _, n := range treesRSS(team) {
		sum += n
	}
	return sum
}

// treesRSS is what each agent's tree holds now, by its session's pid.
func treesRSS(team *Team) map[int]int64 {
	if team == nil {
		return nil
	}
	var pids []int
	for _, a := range team.agents {
		if st := a.Status(); st.Pid > 0 {
			pids = append(pids, st.Pid)
		}
	}
	got, _ := runner.TreeRSS(pids)
	return got
}

// footprintOf starts one fake agent in mode (a session of its own) and
// reads its tree once it holds its memory: its RSS, as the RSS watch reads
// it (what warden learns of such an agent), and its private memory
// (smaps_rollup's Private_Clean + Private_Dirty: what one more such agent
// takes of MemAvailable, the pages they share counted once).
func footprintOf(t testing.TB, mode string) (rss, private int64) {
	t.Helper()
	out := &syncBuffer{}
	p, err := runner.Start(nil, runner.Config{Name: "probe", Argv: fakeagent.Command(mode), Env: fakeagent.Env(mode), Output: out})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.Signal(syscall.SIGKILL); p.Wait() }()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "holding "); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the probe never held its memory: %q", out.String())
		}
	}
	time.Sleep(200 * time.Millisecond)
	got, err := runner.TreeRSS([]int{p.Pid()})
	if err != nil || got[p.Pid()] == 0 {
		t.Fatalf("probe RSS: %v %v", got, err)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", p.Pid()))
	if err != nil {
		t.Fatalf("probe smaps_rollup: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && (f[0] == "Private_Clean:" || f[0] == "Private_Dirty:") {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			private += n << 10
		}
	}
	if private == 0 || private > got[p.Pid()] {
		t.Fatalf("probe private memory %d B, RSS %d B", private, got[p.Pid()])
	}
	return got[p.Pid()], private
}
