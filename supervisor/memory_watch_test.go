//go:build e2e

package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/testrig/proctest"
)

// memTeam runs the team of cfg in the background (startTeamWith); wait
// returns its result, stopping it first when stop.
func memTeam(t *testing.T, cfg *config.Team, prepare func(*Team)) (*Team, *syncBuffer, func(stop bool) Result) {
	t.Helper()
	team, out, wait := startTeamWith(t, cfg, prepare)
	return team, out, func(stop bool) Result {
		if stop {
			team.Stop(true)
		}
		return wait()
	}
}

// waitEvent waits up to 30 s until the state dir holds n events named
// name (of any agent) and returns the last of them.
func waitEvent(t *testing.T, cfg *config.Team, name string, n int) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var got []map[string]any
		for _, e := range eventsOf(t, cfg) {
			if e["event"] == name {
				got = append(got, e)
			}
		}
		if len(got) >= n {
			return got[n-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %d %s events after 30 s (%d)", n, name, len(got))
		}
	}
}

// The RSS watch holds memory_max where no cgroup does: an agent whose tree
// grows past it is told (agent_over_memory, a WARNING line), asked for a
// last checkpoint, stopped and restarted from that checkpoint through the
// restart policy (agent_restarted says why); the session after it holds
// steady and completes the task.
func TestRSSWatchRestartsAnAgentOverMemoryMax(t *testing.T) {
	defer proctest.AssertNone(t)
	once := filepath.Join(t.TempDir(), "grown")
	cfg := writeTeam(t, memoryTimers+tasks(1), fakeAgent{name: "w1", mode: "memory:hold=10:grow=20:every=100ms:once=" + once + ":steps=12"})
	const limit = 200 * config.MB
	cfg.Agents[0].MemoryMax = limit
	team, out, wait := memTeam(t, cfg, func(team *Team) {
		m := team.deps.Memory
		m.Cgroups, m.CgroupWhy = nil, "this test holds memory_max by the RSS watch"
		m.SampleEvery = 100 * time.Millisecond
	})
	res := wait(false)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode(), out.String())
	}
	evs := eventsOf(t, cfg)
	over := firstEvent(evs, event.AgentOverMemory)
	if over == nil || over["rss"].(float64) <= float64(limit) || over["memory_max"] != float64(limit) || over["task"] != "T1" {
		t.Fatalf("agent_over_memory %v", over)
	}
	// After it: the last request, its answer, the exit, the restart with
	// its reason, a second session.
	var after []string
	seen := false
	for _, e := range evs {
		if e["event"] == event.AgentOverMemory {
			seen = true
		}
		if seen {
			after = append(after, e["event"].(string)+":"+str(e["trigger"])+str(e["reason"]))
		}
	}
	want := []string{event.CheckpointRequested + ":restart", event.CheckpointReceived + ":request", event.AgentExited + ":",
		event.AgentRestarted + ":over its memory_max 200 MB", event.AgentStarted + ":"}
	if !inOrder(after, want) {
		t.Errorf("after agent_over_memory:\n%s\nwant in order %v", strings.Join(after, "\n"), want)
	}
	if n := countEvents(evs, event.AgentOverMemory, ""); n != 1 {
		t.Errorf("%d agent_over_memory, want 1 (the second session holds steady)", n)
	}
	if !strings.Contains(out.String(), "WARNING: w1 holds ") || !strings.Contains(out.String(), "over its memory_max 200 MB: a last checkpoint, then a restart") {
		t.Errorf("stdout:\n%s", out.String())
	}
	if log, _ := os.ReadFile(filepath.Join(cfg.StateDir, "logs", "w1.log")); !strings.Contains(string(log), "RESUME-SEEN") {
		t.Error("the second session was not told to resume from the checkpoint")
	}
	if st := team.deps.Memory.Status(); st == nil || st.Limit != "rss_watch" || !strings.Contains(st.LimitNote, "RSS watch") {
		t.Errorf("memory status %+v", st)
	}
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// inOrder reports whether want's items appear in got in that order, each
// as a prefix of an item.
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && strings.HasPrefix(g, want[i]) {
			i++
		}
	}
	return i == len(want)
}

// killAgent sends SIGKILL to agent's process group, as the kernel's OOM
// killer would (with memory.oom.group; without it, the one process it
// picks: the agent here), and returns the pid.
func killAgent(t *testing.T, team *Team, agent string) int {
	t.Helper()
	pid := team.agentNamed(agent).Status().Pid
	if pid <= 0 {
		t.Fatalf("%s has no process", agent)
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	return pid
}

// An agent killed by SIGKILL while the kernel's OOM kill count rose is
// agent_oom — its pid, the evidence, a WARNING line — and is restarted
// from its checkpoint with the reason in agent_restarted; a SIGKILL with no
// OOM kill counted is a plain death by signal, and the team's own stop is
// neither. What cannot be done here is a real OOM kill: the kernel's count
// is the test's (Memory.OOMKills), the SIGKILL is real.
func TestOOMKillIsAgentOOM(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, memoryTimers+tasks(1), fakeAgent{name: "w1", mode: "memory:hold=10:steps=1000"})
	var kills atomic.Int64
	team, out, wait := memTeam(t, cfg, func(team *Team) {
		team.deps.Memory.OOMKills = func() (int64, error) { return kills.Load(), nil }
	})
	waitEvent(t, cfg, event.CheckpointReceived, 1)
	kills.Add(1) // the kernel counts the kill, then the process dies
	pid := killAgent(t, team, "w1")
	oom := waitEvent(t, cfg, event.AgentOOM, 1)
	if oom["pid"] != float64(pid) || oom["signal"] != "SIGKILL" || !strings.Contains(str(oom["evidence"]), "(/proc/vmstat) rose by 1 since the session started") {
		t.Errorf("agent_oom %v (pid %d)", oom, pid)
	}
	restarted := waitEvent(t, cfg, event.AgentRestarted, 1)
	if !strings.HasPrefix(str(restarted["reason"]), "killed by the kernel's OOM killer") {
		t.Errorf("agent_restarted %v", restarted)
	}
	waitEvent(t, cfg, event.CheckpointReceived, 3) // the second session answers
	killAgent(t, team, "w1")                       // no OOM kill counted
	second := waitEvent(t, cfg, event.AgentRestarted, 2)
	if second["reason"] != "killed by SIGKILL" {
		t.Errorf("a plain SIGKILL restarted with reason %v, want killed by SIGKILL", second["reason"])
	}
	waitEvent(t, cfg, event.AgentStarted, 3)
	kills.Add(1) // an OOM kill elsewhere, then the team's own stop
	wait(true)
	evs := eventsOf(t, cfg)
	if n := countEvents(evs, event.AgentOOM, ""); n != 1 {
		t.Errorf("%d agent_oom, want 1", n)
	}
	if !strings.Contains(out.String(), "WARNING: w1 was killed by the kernel's OOM killer (the kernel's oom_kill count (/proc/vmstat) rose by 1") {
		t.Errorf("stdout:\n%s", out.String())
	}
	if log, _ := os.ReadFile(filepath.Join(cfg.StateDir, "logs", "w1.log")); !strings.Contains(string(log), "RESUME-SEEN") {
		t.Error("the session after the OOM kill was not told to resume from the checkpoint")
	}
}

// With the RSS watch on (a memory_max), an OOM kill counted before the
// watch saw the agent alive twice is not the agent's; one counted within
// the window is.
func TestOOMCountBeforeTheWatchSawItAliveIsNotTheAgents(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, memoryTimers+tasks(1), fakeAgent{name: "w1", mode: "memory:hold=10:steps=1000"})
	cfg.Agents[0].MemoryMax = 1 * config.GB
	var kills atomic.Int64
	team, _, wait := memTeam(t, cfg, func(team *Team) {
		m := team.deps.Memory
		m.Cgroups, m.CgroupWhy = nil, "this test holds memory_max by the RSS watch"
		m.SampleEvery = 50 * time.Millisecond
		m.OOMKills = func() (int64, error) { return kills.Load(), nil }
	})
	waitEvent(t, cfg, event.CheckpointReceived, 1)
	kills.Add(1)                       // another process OOM-killed …
	time.Sleep(500 * time.Millisecond) // … while the watch sees w1 alive, sample after sample
	killAgent(t, team, "w1")
	first := waitEvent(t, cfg, event.AgentRestarted, 1)
	if first["reason"] != "killed by SIGKILL" {
		t.Errorf("restarted for %v, want killed by SIGKILL: an OOM kill before the window was taken for the agent's?", first["reason"])
	}
	waitEvent(t, cfg, event.CheckpointReceived, 3)
	time.Sleep(200 * time.Millisecond) // the watch has seen the new session
	kills.Add(1)
	pid := killAgent(t, team, "w1")
	oom := waitEvent(t, cfg, event.AgentOOM, 1)
	if oom["pid"] != float64(pid) || !strings.Contains(str(oom["evidence"]), "since the RSS watch saw its processes alive") {
		t.Errorf("agent_oom %v", oom)
	}
	wait(true)
	if n := countEvents(eventsOf(t, cfg), event.AgentOOM, ""); n != 1 {
		t.Errorf("%d agent_oom, want 1", n)
	}
}
