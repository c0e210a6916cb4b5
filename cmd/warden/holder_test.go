//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/box"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/testrig/proctest"
)

// heldTeam is workerTeam with holder = true: the agents run under the
// team's holder (`warden hold`).
func heldTeam(t testing.TB, extra string, modes ...string) string {
	t.Helper()
	team := workerTeam(t, modes...)
	b, err := os.ReadFile(team)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "name = \"lifecycle\"\n", "name = \"lifecycle\"\nholder = true\n"+extra, 1)
	if err := os.WriteFile(team, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return team
}

// startedPids are the pids of agent_started in events.jsonl, by agent, in
// order.
func startedPids(t testing.TB, state string) map[string][]int {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(state, "events.jsonl"))
	out := map[string][]int{}
	for _, l := range strings.Split(string(b), "\n") {
		var e struct {
			Event string `json:"event"`
			Agent string `json:"agent"`
			Pid   int    `json:"pid"`
		}
		if json.Unmarshal([]byte(l), &e) == nil && e.Event == "agent_started" {
			out[e.Agent] = append(out[e.Agent], e.Pid)
		}
	}
	return out
}

// holderOf is the parent of pid when it is a `warden hold`, else 0.
func holderOf(pid int) int {
	ps, ok := runner.Stat(pid)
	if !ok {
		return 0
	}
	cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(ps.Ppid) + "/cmdline")
	if !strings.Contains(string(cmd), "hold\x00--socket") {
		return 0
	}
	return ps.Ppid
}

// With holder = true every agent is the holder's child, in a session of
// its own, and the run goes as without it: the tasks complete, the holder
// ends with the run, nothing is left.
func TestHeldTeamRunsToTheEnd(t *testing.T) {
	defer proctest.AssertNone(t)
	team := heldTeam(t, "", "worker:steps=6", "worker:steps=6")
	state := filepath.Join(filepath.Dir(team), ".warden")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing", 1)
	pids := startedPids(t, state)
	for _, a := range []string{"w1", "w2"} {
		if len(pids[a]) == 0 || holderOf(pids[a][0]) == 0 {
			t.Errorf("%s (pids %v) is not a child of the holder", a, pids[a])
			continue
		}
		// In its box as without the holder: behind the walls where the
		// kernel lets warden build them (a user namespace of its own).
		ours, _ := os.Readlink("/proc/self/ns/user")
		its, _ := os.Readlink("/proc/" + strconv.Itoa(pids[a][0]) + "/ns/user")
		if ok, _ := box.WallsAvailable(); ok && (its == "" || its == ours) {
			t.Errorf("%s (pid %d) is not behind the box's walls: user namespace %q, ours %q", a, pids[a][0], its, ours)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("warden run: %v\n%s", err, out.dump())
	}
	for _, id := range []string{"T1", "T2"} {
		if out.count("CHECKPOINT: "+id+" - complete (100%)") != 1 {
			t.Errorf("%s did not complete:\n%s", id, out.dump())
		}
	}
	log, _ := os.ReadFile(filepath.Join(state, "logs", "holder.log"))
	if !strings.Contains(string(log), "holder ended") {
		t.Errorf("the holder did not end with the run:\n%s", log)
	}
	if _, err := os.Stat(filepath.Join(state, "holder.sock")); err == nil {
		t.Error("holder.sock is left after the run")
	}
}

// Ctrl-C stops a held team as any: a team checkpoint, every agent and the
// holder gone, exit 130.
func TestHeldTeamStopsWithNothingLeft(t *testing.T) {
	defer proctest.AssertNone(t)
	team := heldTeam(t, "", "worker:steps=1000:spawn=1", "worker:steps=1000")
	state := filepath.Join(filepath.Dir(team), ".warden")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T2 - implementing", 1)
	pids := startedPids(t, state)
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); exitCode(err) != 130 {
		t.Fatalf("exit %d after Ctrl-C, want 130\n%s", exitCode(err), out.dump())
	}
	if out.count("CHECKPOINT COMPLETE") != 1 {
		t.Errorf("no team checkpoint:\n%s", out.dump())
	}
	for a, ps := range pids {
		for _, p := range ps {
			if !proctest.GroupGone(p) {
				t.Errorf("%s's process group %d is left", a, p)
			}
		}
	}
}

// A held team whose warden was killed with -9, started again with
// --fresh: nothing is taken back, the holder's live agents are stopped
// (nothing runs twice), the new run starts the tasks afresh, nothing is
// left.
func TestHeldTeamKill9ThenFreshStopsTheHeldAgents(t *testing.T) {
	defer proctest.AssertNone(t)
	team := heldTeam(t, "", "worker:steps=8", "worker:steps=8")
	state := filepath.Join(filepath.Dir(team), ".warden")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing (25%)", 1)
	out.waitFor(t, "CHECKPOINT: T2 - implementing (25%)", 1)
	first := startedPids(t, state)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	time.Sleep(300 * time.Millisecond)
	for a, ps := range first {
		if syscall.Kill(ps[0], 0) != nil {
			t.Fatalf("%s (pid %d) died with warden: the holder did not keep it", a, ps[0])
		}
	}
	cmd2, out2 := runWarden(t, "run", team, "--fresh")
	if err := cmd2.Wait(); err != nil {
		t.Fatalf("the new run: %v\n%s", err, out2.dump())
	}
	for _, id := range []string{"T1", "T2"} {
		if out2.count("CHECKPOINT: "+id+" - complete (100%)") != 1 || out2.count("CHECKPOINT: "+id+" - implementing (12%)") != 1 {
			t.Errorf("%s did not start afresh and complete:\n%s", id, out2.dump())
		}
	}
	events, _ := os.ReadFile(filepath.Join(state, "events.jsonl"))
	if !strings.Contains(string(events), "held for a dead supervisor") {
		t.Errorf("the held agents of the dead warden were not reported stopped:\n%s", events)
	}
	for a, ps := range first {
		if !proctest.GroupGone(ps[0]) {
			t.Errorf("%s's first process group %d is left", a, ps[0])
		}
	}
}

// A holder no warden comes back to within orphan_timeout stops its agents
// and ends: nothing is left.
func TestHolderAloneStopsItsAgentsAfterTheOrphanTimeout(t *testing.T) {
	defer proctest.AssertNone(t)
	team := heldTeam(t, "orphan_timeout = \"1s\"\n", "worker:steps=1000:spawn=1", "worker:steps=1000")
	state := filepath.Join(filepath.Dir(team), ".warden")
	cmd, out := runWarden(t, "run", team)
	out.waitFor(t, "CHECKPOINT: T1 - implementing", 1)
	out.waitFor(t, "CHECKPOINT: T2 - implementing", 1)
	first := startedPids(t, state)
	hp := holderOf(first["w1"][0])
	// The boxes the warden made (where this kernel lets it): the holder
	// removes them once it stopped their agents alone; no warden is left to.
	var boxes []string
	for _, root := range []string{"/sys/fs/cgroup/unified", "/sys/fs/cgroup"} {
		if d := filepath.Join(root, "warden."+strconv.Itoa(cmd.Process.Pid)); dirExists(d) {
			boxes = append(boxes, d)
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	for deadline := time.Now().Add(15 * time.Second); syscall.Kill(hp, 0) == nil && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if hp == 0 || syscall.Kill(hp, 0) == nil {
		t.Fatalf("the holder (pid %d) did not end after its orphan timeout", hp)
	}
	for a, ps := range first {
		if !proctest.GroupGone(ps[0]) {
			t.Errorf("%s's process group %d is left after the orphan timeout", a, ps[0])
		}
	}
	log, _ := os.ReadFile(filepath.Join(state, "logs", "holder.log"))
	if !strings.Contains(string(log), "no client came back") {
		t.Errorf("the holder's log does not say why it stopped its agents:\n%s", log)
	}
	for _, d := range boxes {
		if dirExists(d) {
			t.Errorf("the dead warden's cgroups %s are left after the holder stopped its agents", d)
		}
	}
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
