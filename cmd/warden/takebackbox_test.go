//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/proctest"
)

// A session taken back from the holder lives on in the box of the warden
// that took it back, not in the dead warden's: the agent and what it left
// behind — an escapee in a session of its own, its environment cleared
// (no runner tag) — are moved into the new warden's cgroup, and warden
// stop ends them all. Before, the escapee stayed in the dead warden's box,
// which nothing killed, and outlived the run.
func TestATakenBackSessionMovesIntoTheNewBox(t *testing.T) {
	defer proctest.AssertNone(t)
	if _, err := os.Stat("/sys/fs/cgroup/unified/cgroup.procs"); err != nil {
		if _, err := os.Stat("/sys/fs/cgroup/cgroup.procs"); err != nil {
			t.Skip("no cgroup v2 hierarchy here: no box")
		}
	}
	dir := t.TempDir()
	out, esc := filepath.Join(dir, "out"), filepath.Join(dir, "escapee")
	team := opsTeam(t, "holder = true\ncheckpoint_interval = \"1h\"\nstale_warning = \"1h\"\nstale_failure = \"2h\"",
		opsAgent{name: "h", mode: "hostile:out=" + out + ":escape=" + esc, task: true})
	cmd, _ := runWarden(t, "run", team)
	agent := int(waitEvents(t, team, "agent_started", "h", 1)[0]["pid"].(float64))
	escapee := 0
	for deadline := time.Now().Add(20 * time.Second); escapee == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(esc)
		escapee, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if escapee == 0 {
		t.Fatal("the agent left no escapee")
	}
	defer syscall.Kill(escapee, syscall.SIGKILL) // on failure only
	first := cmd.Process.Pid
	if !strings.Contains(cgroupPath(escapee), "/warden."+strconv.Itoa(first)+"/") {
		t.Fatalf("the escapee is not in the first warden's box: %s", cgroupPath(escapee))
	}
	cmd2, _ := kill9ThenRun(t, cmd, team, "h")
	want := "/warden." + strconv.Itoa(cmd2.Process.Pid) + "/"
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(cgroupPath(agent), want) && strings.Contains(cgroupPath(escapee), want) {
			break
		}
	}
	if a, e := cgroupPath(agent), cgroupPath(escapee); !strings.Contains(a, want) || !strings.Contains(e, want) {
		t.Errorf("after the take-back the agent is in %s and its escapee in %s, want both in %s", a, e, want)
	}
	if msg, err := warden("stop", team).CombinedOutput(); err != nil {
		t.Fatalf("warden stop: %v\n%s", err, msg)
	}
	cmd2.Wait()
	for deadline := time.Now().Add(5 * time.Second); pidState(escapee) != 0 && pidState(escapee) != 'Z' && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
	}
	if st := pidState(escapee); st != 0 && st != 'Z' {
		t.Errorf("the escapee %d outlived warden stop (state %c, %s)", escapee, st, cgroupPath(escapee))
	}
}

// cgroupPath is the cgroup v2 path of pid ("0::PATH"), "" when gone.
func cgroupPath(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	for _, l := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(l, "0::"); ok {
			return p + "/"
		}
	}
	return ""
}
