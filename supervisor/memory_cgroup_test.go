//go:build e2e

package supervisor

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/memory"
	"github.com/wardenhq/warden/testrig/proctest"
)

// cgroupsFor sets up warden's cgroups for a test with the controllers need,
// on the cgroup v2 hierarchy mounted here or, as root, on one the test
// mounts; it skips, saying why, where there is none to be had.
func cgroupsFor(t *testing.T, need []string) *memory.Cgroups {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("warden makes cgroups as root or in a delegated group; this test runs as root only")
	}
	cg, err := memory.SetUpCgroups(hclog.NewNullLogger(), need)
	if err != nil && strings.Contains(err.Error(), "no cgroup v2 hierarchy is mounted") {
		dir := t.TempDir()
		if merr := unix.Mount("none", dir, "cgroup2", 0, ""); merr != nil {
			t.Skipf("no cgroup2 hierarchy is mounted, and mounting one failed: %v", merr)
		}
		t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
		cg, err = memory.SetUpCgroups(hclog.NewNullLogger(), need)
	}
	if err != nil {
		t.Skipf("no cgroup for warden here: %v", err)
	}
	return cg
}

// procCgroup is process pid's cgroup v2 path.
func procCgroup(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	for _, l := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(l, "0::"); ok {
			return p
		}
	}
	return ""
}

// An agent with memory_max starts in a cgroup of its own session, made
// under warden's, on the real cgroup v2 hierarchy: it and the child it
// starts are in it from the start; when the session ends the group is
// killed and removed, and warden's own group when the team closes. Here
// the hierarchy has no memory controller (it is cgroup v1's on this
// machine), so the groups hold the processes without memory.max: the
// limit itself is TestCgroupHoldsMemoryMax's, which needs one.
func TestCgroupHoldsTheAgentsProcesses(t *testing.T) {
	defer proctest.AssertNone(t)
	cg := cgroupsFor(t, nil)
	base := cg.Base()
	_, err := os.Stat(filepath.Join(base, "memory.max"))
	want := "cgroup" // memory_max held by the group's memory.max
	if err != nil {
		want = "rss_watch" // no memory controller here: the groups hold the processes, the RSS watch the limit
	}
	cfg := writeTeam(t, memoryTimers+tasks(1), fakeAgent{name: "w1", mode: "memory:hold=10:child=10:steps=10"})
	cfg.Agents[0].MemoryMax = 1 * config.GB
	team, _, wait := memTeam(t, cfg, func(team *Team) { team.deps.Memory.Cgroups = cg })
	waitEvent(t, cfg, event.CheckpointReceived, 1)
	pid := team.agentNamed("w1").Status().Pid
	kids := proctest.Children(pid)
	rel := procCgroup(pid)
	if rel == "" || !strings.HasSuffix(base, filepath.Dir(rel)) || !strings.HasPrefix(filepath.Base(rel), "agent-w1-") {
		t.Errorf("the agent is in cgroup %q, want %s/agent-w1-N", rel, base)
	}
	if len(kids) == 0 {
		t.Error("the agent started no child")
	}
	for _, k := range kids {
		if got := procCgroup(k); got != rel {
			t.Errorf("its child %d is in %q, want %q", k, got, rel)
		}
	}
	group := filepath.Join(base, filepath.Base(rel))
	if res := wait(false); res.ExitCode() != 0 {
		t.Fatalf("exit %d", res.ExitCode())
	}
	if _, err := os.Stat(group); !os.IsNotExist(err) {
		t.Errorf("the session's group %s is still there: %v", group, err)
	}
	if _, err := os.Stat(base); !os.IsNotExist(err) {
		t.Errorf("warden's group %s is still there after Close: %v", base, err)
	}
	if st := team.deps.Memory.Status(); st == nil || st.Limit != want {
		t.Errorf("memory status %+v, want limit %s", st, want)
	}
}

// Where warden can make a cgroup with the memory controller (cgroup v2,
// as root or in a delegated group), memory_max is the kernel's: an agent
// that grows past it is OOM-killed in its group, which memory.events
// counts — agent_oom on that certain evidence — and it is restarted from
// its checkpoint; the session after it holds steady and completes. It
// cannot run on the development machines (their memory controller is
// cgroup v1's): it skips there saying so.
func TestCgroupHoldsMemoryMax(t *testing.T) {
	defer proctest.AssertNone(t)
	cg := cgroupsFor(t, []string{"memory"})
	once := filepath.Join(t.TempDir(), "grown")
	cfg := writeTeam(t, memoryTimers+tasks(1), fakeAgent{name: "w1", mode: "memory:hold=10:grow=50:every=100ms:once=" + once + ":steps=10"})
	cfg.Agents[0].MemoryMax = 256 * config.MiB
	_, out, wait := memTeam(t, cfg, func(team *Team) { team.deps.Memory.Cgroups = cg })
	oom := waitEvent(t, cfg, event.AgentOOM, 1)
	if !strings.Contains(str(oom["evidence"]), "its cgroup's memory.events counts oom_kill") {
		t.Errorf("agent_oom %v", oom)
	}
	if res := wait(false); res.ExitCode() != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode(), out.String())
	}
	evs := eventsOf(t, cfg)
	if n := countEvents(evs, event.AgentOverMemory, ""); n != 0 {
		t.Errorf("%d agent_over_memory: the RSS watch acted where the cgroup holds the limit", n)
	}
	if r := firstEvent(evs, event.AgentRestarted); r == nil || !strings.HasPrefix(str(r["reason"]), "killed by the kernel's OOM killer") {
		t.Errorf("agent_restarted %v", r)
	}
}
