//go:build e2e

package supervisor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
)

// verifyTeam is a team of one task whose verify runs up to 20 s: it notes
// its pid (its process group) in dir/verify.pids, waits for dir/go (which
// it takes), then passes when dir/fixed exists and fails with "missing
// fixed" (exit 7) when not. It carries the test's owner mark, so that
// proctest sees what it leaves.
func verifyTeam(dir string) string {
	owner := fakeagent.EnvOwner + "=" + strconv.Itoa(os.Getpid())
	script := fmt.Sprintf(`echo $$ >> %[1]s/verify.pids
i=0
while [ $i -lt 200 ] && [ ! -e %[1]s/go ]; do sleep 0.1; i=$((i+1)); done
rm -f %[1]s/go
test -e %[1]s/fixed || { echo 'missing fixed'; exit 7; }`, dir)
	q, _ := json.Marshal([]string{"env", owner, "sh", "-c", script})
	return `checkpoint_interval = "1h"
shutdown_timeout = "2s"
[[task]]
id = "T1"
title = "Make the check pass"
prompt = "Make the check pass."
verify = ` + string(q) + "\n"
}

// verifyPids are the pids (process groups) of the verifies run so far.
func verifyPids(dir string) []int {
	b, _ := os.ReadFile(filepath.Join(dir, "verify.pids"))
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// waitVerifies waits until n verifies have started and returns the last.
func waitVerifies(t *testing.T, dir string, n int) int {
	t.Helper()
	waitFor(t, fmt.Sprintf("verify %d started", n), func() bool { return len(verifyPids(dir)) >= n })
	pids := verifyPids(dir)
	return pids[len(pids)-1]
}

// running reports whether the verify's process group still has members.
func running(pgid int) bool { return !proctest.GroupGone(pgid) }

func touch(t *testing.T, path, content string) {
	t.Helper()
	// Written whole, then renamed into place: the fake agent polls for the
	// file and reads it at once, and a file created and then written is
	// empty for a moment (it once answered "Status:" with no status).
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// recordsOf are the checkpoint_received events of agent, in order.
func recordsOf(evs []map[string]any, agent string) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e["event"] == event.CheckpointReceived && e["agent"] == agent {
			out = append(out, e)
		}
	}
	return out
}

func taskState(t *testing.T, cfg *config.Team, id string) string {
	for _, ts := range readSnapshot(t, cfg.StateDir).Tasks {
		if ts.ID == id {
			return string(ts.State)
		}
	}
	return ""
}

// While a verify runs (up to 20 s), its session goes on: the agent's
// dialog is seen (agent_waiting), a new block is recorded, and nothing is
// typed into the dialog; the task shows verifying. When the verify passes
// the task completes with the record that was verified, archived, and the
// agent is asked to quit.
func TestVerifyRunsOffTheSessionsLoop(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	touch(t, filepath.Join(dir, "fixed"), "")
	cfg := writeTeam(t, verifyTeam(dir), fakeAgent{name: "w", mode: "tui-verify:" + dir, profile: "claude"})
	_, out, wait := startTeamCfg(t, cfg)
	pgid := waitVerifies(t, dir, 1)
	began := time.Now()
	waitFor(t, "the task shown verifying", func() bool { return taskState(t, cfg, "T1") == string(queue.Verifying) })

	touch(t, filepath.Join(dir, "dialog"), "")
	waitForD(t, "agent_waiting while the verify runs", 5*time.Second, func() bool {
		return countEvents(eventsOf(t, cfg), event.AgentWaiting, "w") == 1
	})
	if !running(pgid) {
		t.Fatal("the verify ended before the dialog was seen")
	}
	touch(t, filepath.Join(dir, "answered"), protocol.StatusImplementing)
	waitForD(t, "the dialog gone and a new block recorded while the verify runs", 10*time.Second, func() bool {
		evs := eventsOf(t, cfg)
		return len(recordsOf(evs, "w")) == 2 && countEvents(evs, event.AgentResumed, "w") == 1
	})
	evs := eventsOf(t, cfg)
	if !running(pgid) || time.Since(began) >= 20*time.Second {
		t.Fatalf("the verify ended before the assertions (%s): they prove nothing", time.Since(began))
	}
	recs := recordsOf(evs, "w")
	if recs[0]["status"] != protocol.StatusComplete || recs[1]["status"] != protocol.StatusImplementing {
		t.Fatalf("records %v", recs)
	}
	if countEvents(evs, event.AgentResumed, "w") != 1 || countEvents(evs, event.TaskCompleted, "") != 0 {
		t.Errorf("events while the verify runs: %v", evs)
	}
	if n := len(verifyPids(dir)); n != 1 {
		t.Errorf("%d verifies started, want 1", n)
	}
	t.Logf("dialog seen and block recorded %s into the verify", time.Since(began).Round(time.Millisecond))

	touch(t, filepath.Join(dir, "go"), "")
	res := wait()
	if res.ExitCode() != 0 || res.Tasks[0].State != queue.Complete || res.Tasks[0].Verify != "passed" {
		t.Fatalf("result %+v\n%s", res, out.String())
	}
	if running(pgid) {
		t.Error("the verify's group is still there")
	}
	if !strings.Contains(out.String(), "TASK COMPLETE: T1 (Make the check pass) verify: passed") ||
		strings.Contains(out.String(), "VERIFY FAILED") {
		t.Errorf("stdout:\n%s", out.String())
	}
	// The archive is the record that was verified (saved again after the
	// later one), not the implementing record that came meanwhile.
	var archived protocol.Checkpoint
	b, err := os.ReadFile(filepath.Join(cfg.StateDir, "checkpoints", "w-T1-complete.json"))
	if err != nil || json.Unmarshal(b, &archived) != nil {
		t.Fatalf("archive: %v\n%s", err, b)
	}
	if archived.Status != protocol.StatusComplete || archived.CheckpointID != recs[0]["checkpoint_id"] {
		t.Errorf("archived %s (%s), want the verified record %s", archived.CheckpointID, archived.Status, recs[0]["checkpoint_id"])
	}
	if e := firstEvent(eventsOf(t, cfg), event.TaskCompleted); e == nil || e["checkpoint_id"] != recs[0]["checkpoint_id"] {
		t.Errorf("task_completed %v", e)
	}
	if _, err := os.Stat(filepath.Join(cfg.StateDir, "checkpoints", "w-T1.json")); !os.IsNotExist(err) {
		t.Errorf("an open record is left beside the archive: %v", err)
	}
	for _, l := range dialogLog(t, filepath.Join(dir, "log")) {
		if strings.HasPrefix(l, "TYPED") {
			t.Errorf("typed into the dialog: %s", l)
		}
	}
}

// A second complete block while a verify runs is recorded and starts no
// second verify; a verify that fails sends the task back with its output
// (VERIFY FAILED, the feedback typed to the agent), and the fixed work's
// next complete block starts a new verify, which completes the task.
func TestSecondCompleteWhileVerifyingAndAFailedVerify(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	cfg := writeTeam(t, verifyTeam(dir), fakeAgent{name: "w", mode: "tui-verify:" + dir, profile: "claude"})
	_, out, wait := startTeamCfg(t, cfg)
	first := waitVerifies(t, dir, 1)
	touch(t, filepath.Join(dir, "dialog"), "")
	waitFor(t, "agent_waiting", func() bool { return countEvents(eventsOf(t, cfg), event.AgentWaiting, "w") == 1 })
	touch(t, filepath.Join(dir, "answered"), protocol.StatusComplete)
	waitFor(t, "the second complete block recorded", func() bool { return len(recordsOf(eventsOf(t, cfg), "w")) == 2 })
	time.Sleep(500 * time.Millisecond) // time enough to start a verify it should not
	if n := len(verifyPids(dir)); n != 1 || !running(first) {
		t.Fatalf("%d verifies started, first running %v: want the first alone, still running", n, running(first))
	}

	touch(t, filepath.Join(dir, "go"), "") // dir/fixed is missing: it fails
	waitFor(t, "VERIFY FAILED", func() bool { return strings.Contains(out.String(), "VERIFY FAILED: T1 - exit code 7") })
	// Read once: a second read is a later moment (it said "running" while
	// the first had said neither).
	if st := taskState(t, cfg, "T1"); st != string(queue.Running) && st != string(queue.Verifying) {
		t.Errorf("task %q after a failed verify", st)
	}
	second := waitVerifies(t, dir, 2) // the agent was told, fixed it, said complete again
	if second == first || running(first) {
		t.Fatalf("verify pids %v; first running %v", verifyPids(dir), running(first))
	}
	touch(t, filepath.Join(dir, "go"), "")
	res := wait()
	if res.ExitCode() != 0 || res.Tasks[0].State != queue.Complete || res.Tasks[0].Verify != "passed" {
		t.Fatalf("result %+v\n%s", res, out.String())
	}
	evs := eventsOf(t, cfg)
	if countEvents(evs, event.TaskVerifyFailed, "w") != 1 || countEvents(evs, event.TaskCompleted, "w") != 1 {
		t.Errorf("events: %v", evs)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "log"))
	if !strings.Contains(string(log), "LINE VERIFY FAILED for T1") || !strings.Contains(string(log), "FEEDBACK") {
		t.Errorf("the agent was not told:\n%s", log)
	}
	agentLog, _ := os.ReadFile(filepath.Join(cfg.StateDir, "logs", "w.log"))
	if !strings.Contains(string(agentLog), "missing fixed") {
		t.Error("the verify's output was not typed to the agent")
	}
}

// A stop while a verify runs kills the verify's group; the task is not
// complete and not failed, and the handoff says it is in progress with its
// verify stopped.
func TestStopDuringVerifyKillsItsGroup(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	touch(t, filepath.Join(dir, "fixed"), "")
	cfg := writeTeam(t, verifyTeam(dir), fakeAgent{name: "w", mode: "tui-verify:" + dir, profile: "claude"})
	team, out, wait := startTeamCfg(t, cfg)
	pgid := waitVerifies(t, dir, 1)
	began := time.Now()
	team.Stop(true)
	res := wait()
	if took := time.Since(began); took > 15*time.Second {
		t.Errorf("the stop took %s", took)
	}
	if running(pgid) {
		t.Fatal("the verify's group outlived the stop")
	}
	if res.Tasks[0].State == queue.Complete || res.Tasks[0].State == queue.Failed || res.Tasks[0].Verify != "stopped: the team checkpoint began" {
		t.Errorf("task %+v", res.Tasks[0])
	}
	evs := eventsOf(t, cfg)
	if countEvents(evs, event.TaskCompleted, "") != 0 || countEvents(evs, event.TaskVerifyFailed, "") != 0 ||
		strings.Contains(out.String(), "VERIFY FAILED") {
		t.Errorf("a stopped verify completed or failed the task:\n%s", out.String())
	}
	md, _ := os.ReadFile(filepath.Join(cfg.StateDir, "handoff.md"))
	if !strings.Contains(string(md), "| T1 | in_progress | stopped: the team checkpoint began |") {
		t.Errorf("handoff.md:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(cfg.StateDir, "checkpoints", "w-T1-complete.json")); !os.IsNotExist(err) {
		t.Errorf("archived as complete: %v", err)
	}
	if err := syscall.Kill(pgid, 0); err == nil {
		t.Errorf("verify %d alive", pgid)
	}
}

// An agent that exits while its verify runs: the verdict still lands, and
// a pass completes the task (no restart, exit 0).
func TestVerdictLandsAfterTheAgentExited(t *testing.T) {
	defer proctest.AssertNone(t)
	dir := t.TempDir()
	touch(t, filepath.Join(dir, "fixed"), "")
	cfg := writeTeam(t, verifyTeam(dir), fakeAgent{name: "w", mode: "tui-verify:" + dir, profile: "claude"})
	_, out, wait := startTeamCfg(t, cfg)
	pgid := waitVerifies(t, dir, 1)
	touch(t, filepath.Join(dir, "dialog"), "")
	waitFor(t, "agent_waiting", func() bool { return countEvents(eventsOf(t, cfg), event.AgentWaiting, "w") == 1 })
	touch(t, filepath.Join(dir, "answered"), "exit")
	waitFor(t, "agent_exited", func() bool { return countEvents(eventsOf(t, cfg), event.AgentExited, "w") == 1 })
	if !running(pgid) {
		t.Fatal("the verify ended with its agent")
	}
	touch(t, filepath.Join(dir, "go"), "")
	res := wait()
	if res.ExitCode() != 0 || res.Tasks[0].State != queue.Complete {
		t.Fatalf("result %+v\n%s", res, out.String())
	}
	evs := eventsOf(t, cfg)
	if countEvents(evs, event.AgentStarted, "w") != 1 || countEvents(evs, event.TaskCompleted, "w") != 1 {
		t.Errorf("events: %v", evs)
	}
}

// A task without a title is named by its id alone: no empty parentheses
// on its TASK COMPLETE line (issue 31).
func TestAnUntitledTaskCompletesWithoutEmptyParentheses(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+`[[task]]
id = "T1"
prompt = "Work."
verify = ["true"]
`, fakeAgent{name: "w1", mode: "worker:steps=1"})
	res, stdout, _ := runTeam(t, cfg, 60*time.Second)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode(), stdout)
	}
	if !strings.Contains(stdout, "TASK COMPLETE: T1 verify: passed") || strings.Contains(stdout, "()") {
		t.Errorf("want `TASK COMPLETE: T1 verify: passed`, and no empty parentheses:\n%s", stdout)
	}
}
