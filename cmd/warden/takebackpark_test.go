//go:build e2e

package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/proctest"
)

// An account parked when warden is killed with -9 stays parked in the
// warden that takes its agents back — account_parked again, carried over,
// until the plan the dead warden had made — and goes on at it: the agent
// whose process group was stopped is continued and asked for checkpoints
// again, none restarted.
func TestAParkTakenBackGoesOnAtItsReset(t *testing.T) {
	defer proctest.AssertNone(t)
	team := opsTeam(t, "holder = true\ncheckpoint_interval = \"300ms\"\ncheckpoint_timeout = \"2s\"\nstale_warning = \"600ms\"\nstale_failure = \"1200ms\"",
		opsAgent{name: "a", mode: "hooked:limit=4", task: true}, opsAgent{name: "b", mode: "hooked", task: true},
		opsAgent{name: "d", mode: "hooked:limit=4", task: true})
	b, err := os.ReadFile(team)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, n := range []string{"a", "b", "d"} {
		s = strings.Replace(s, "[[agent]]\nname = \""+n+"\"\n", "[[agent]]\nname = \""+n+"\"\naccount = \"work\"\n", 1)
	}
	if err := os.WriteFile(team, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, _ := runWarden(t, "run", team)
	parked := waitEvents(t, team, "account_parked", "", 1)[0]
	if parked["source"] != "status_line" {
		t.Fatalf("account_parked: %v", parked)
	}
	until, _ := time.Parse(time.RFC3339, parked["until"].(string))
	pidB := int(waitEvents(t, team, "agent_started", "b", 1)[0]["pid"].(float64))
	waitStopped(t, pidB)
	cmd2, _ := kill9ThenRun(t, cmd, team, "a")
	defer stopRun(cmd2)
	carried := waitEvents(t, team, "account_parked", "", 2)[1]
	if carried["source"] != "carried_over" || carried["account"] != "work" || carried["until"] != parked["until"] {
		t.Errorf("the park carried over: %v; the first: %v", carried, parked)
	}
	if time.Now().Before(until.Add(-2 * time.Second)) {
		waitStopped(t, pidB) // parked still, its group stopped again
	}
	resumed := waitEventsWithin(t, team, "account_resumed", "", 1, time.Until(until)+20*time.Second)[0]
	at, _ := time.Parse(time.RFC3339Nano, resumed["ts"].(string))
	if at.Before(until) {
		t.Errorf("account_resumed at %v, before the plan carried over (%v)", at, until)
	}
	n := len(eventsNamed(team, "checkpoint_received", "b"))
	waitEventsWithin(t, team, "checkpoint_received", "b", n+1, 20*time.Second)
	if st := pidState(pidB); st == 'T' || st == 0 {
		t.Errorf("b after the reset: state %q (want it running, not stopped)", st)
	}
	for _, name := range []string{"a", "b", "d"} {
		for _, e := range eventsNamed(team, "agent_started", name) {
			if int(e["pid"].(float64)) == 0 {
				t.Errorf("agent_started of %s without a pid: %v", name, e)
			}
		}
		if n := len(eventsNamed(team, "agent_started", name)); n != 2 {
			t.Errorf("%s started %d times, want 2 (once, then taken back)", name, n)
		}
	}
}

// waitStopped waits until pid's process is stopped (SIGSTOP: state T).
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if pidState(pid) == 'T' {
			return
		}
	}
	t.Fatalf("pid %d was never stopped", pid)
}

// pidState is the state letter of /proc/PID/stat (R, S, T…), 0 when the
// process is gone.
func pidState(pid int) byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}

// waitEventsWithin is waitEvents with a deadline of its own.
func waitEventsWithin(t testing.TB, team, name, agent string, n int, d time.Duration) []map[string]any {
	t.Helper()
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if evs := eventsNamed(team, name, agent); len(evs) >= n {
			return evs
		}
	}
	t.Fatalf("no %d× %s events of %q within %v; events:\n%v", n, name, agent, d, teamEvents(team))
	return nil
}
