//go:build e2e

package supervisor

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// An agent that fails (restart = never, it crashed) does not take its task
// down with it while another agent may take it: the task goes back to the
// queue, the other agent resumes it from its checkpoint (archived as
// _crashed_), and the run ends with every task complete.
func TestFailedAgentsTaskIsTakenOver(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+`[[task]]
id = "T1"
prompt = "First."
[[task]]
id = "T2"
prompt = "Second."
`, fakeAgent{name: "w1", mode: "worker:steps=3:crash=1", restart: "never"},
		fakeAgent{name: "w2", mode: "worker:steps=3"})
	res, stdout, team := runTeam(t, cfg, 60*time.Second)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d, tasks %+v\n%s", res.ExitCode(), res.Tasks, stdout)
	}
	evs := eventsOf(t, cfg)
	released := firstEvent(evs, event.TaskReleased)
	if released == nil || released["agent"] != "w1" || countEvents(evs, event.TaskFailed, "") != 0 {
		t.Fatalf("events: %v", evs)
	}
	task := released["task"].(string)
	crashed, _ := filepath.Glob(filepath.Join(cfg.StateDir, "checkpoints", "w1-"+task+"_crashed_*.json"))
	if len(crashed) != 1 {
		t.Errorf("no _crashed_ archive of w1's checkpoint on %s", task)
	}
	log, _ := os.ReadFile(team.dir.AgentLog("w2"))
	if !strings.Contains(string(log), "RESUME-SEEN: You are resuming") {
		t.Errorf("w2 did not resume %s from w1's checkpoint:\n%s", task, log)
	}
}

// A blocked checkpoint is reported (task_blocked, a WARNING line), listed
// under its own heading in the handoff, and the agent is not asked again
// every interval.
func TestBlockedCheckpointIsReported(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+`[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "w1", mode: "worker:steps=1:final=blocked"})
	_, stdout, _ := runTeam(t, cfg, 3*time.Second)
	evs := eventsOf(t, cfg)
	if countEvents(evs, event.TaskBlocked, "w1") != 1 || !strings.Contains(stdout, "WARNING: T1 is blocked") {
		t.Fatalf("events %v\nstdout:\n%s", evs, stdout)
	}
	// After the blocked answer, asked only every 3 intervals (450 ms).
	var last time.Time
	for _, e := range evs {
		if e["event"] == event.CheckpointRequested && e["trigger"] == nil && firstEvent(evs, event.TaskBlocked) != nil { // the monitor's, not the last call
			at := eventTime(t, e)
			if !last.IsZero() && at.After(eventTime(t, firstEvent(evs, event.TaskBlocked))) && at.Sub(last) < 400*time.Millisecond {
				t.Errorf("a blocked agent asked again after %s (interval 150ms)", at.Sub(last))
			}
			last = at
		}
	}
	md, _ := os.ReadFile(filepath.Join(cfg.StateDir, "handoff.md"))
	if !strings.Contains(string(md), "## Blocked") || !strings.Contains(string(md), "| T1 |") {
		t.Errorf("handoff.md:\n%s", md)
	}
}

// A record exists as soon as a task starts (trigger dispatch, 0 %), before
// the agent answers anything; a Ctrl-C's last checkpoints say why
// (team_checkpoint, cause user_interrupt); the handoff shows the task that
// was being worked on as in_progress with its owner, and says why.
func TestDispatchRecordTriggersAndHandoff(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `checkpoint_interval = "1h"
checkpoint_timeout = "3s"
shutdown_timeout = "1s"
[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "w1", mode: "worker:steps=5"})
	team, _, wait := startTeamCfg(t, cfg)
	var cp protocol.Checkpoint
	waitFor(t, "the dispatch record", func() bool {
		b, err := os.ReadFile(filepath.Join(cfg.StateDir, "checkpoints", "w1-T1.json"))
		return err == nil && json.Unmarshal(b, &cp) == nil
	})
	if cp.Trigger != protocol.TriggerDispatch || cp.ProgressPercent != 0 || cp.SessionID == "" || cp.Status != "implementing" {
		t.Errorf("dispatch record %+v", cp)
	}
	time.Sleep(500 * time.Millisecond)
	team.Stop(true)
	res := wait()
	if res.ExitCode() != 130 {
		t.Errorf("exit %d", res.ExitCode())
	}
	b, _ := os.ReadFile(filepath.Join(cfg.StateDir, "checkpoints", "w1-T1.json"))
	json.Unmarshal(b, &cp)
	if cp.Trigger != protocol.TriggerTeamCheckpoint || cp.Cause != protocol.CauseUserInterrupt {
		t.Errorf("last checkpoint: trigger %q cause %q", cp.Trigger, cp.Cause)
	}
	md, _ := os.ReadFile(filepath.Join(cfg.StateDir, "handoff.md"))
	for _, want := range []string{"| T1 | - | in_progress | w1 |", "- Cause: the user stopped the team"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("handoff.md lacks %q:\n%s", want, md)
		}
	}
}

// warden checkpoint's team checkpoint is recorded as manual.
func TestManualCheckpointCause(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, `checkpoint_interval = "1h"
checkpoint_timeout = "3s"
shutdown_timeout = "1s"
after_team_checkpoint = "exit"
[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "w1", mode: "worker:steps=5"})
	_, _, wait := startTeamCfg(t, cfg)
	waitFor(t, "the agent at work", func() bool { return countEvents(eventsOf(t, cfg), event.AgentStarted, "w1") == 1 })
	time.Sleep(300 * time.Millisecond)
	if _, _, err := RequestCheckpoint(cfg.StateDir, "", "checkpoint-needed"); err != nil {
		t.Fatal(err)
	}
	wait()
	e := firstEvent(eventsOf(t, cfg), event.TeamCheckpointStarted)
	if e == nil || e["cause"] != protocol.CauseManual || !strings.Contains(e["reason"].(string), "warden checkpoint") {
		t.Errorf("team_checkpoint_started %v", e)
	}
}

// A fresh run (no --resume) puts the earlier run's open records aside as
// _aborted_ and starts records of its own, with a new started_at.
func TestFreshRunArchivesTheEarlierRun(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+`[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "w1", mode: "worker:steps=50"})
	runTeam(t, cfg, 1500*time.Millisecond)
	var first, second protocol.Checkpoint
	b, _ := os.ReadFile(filepath.Join(cfg.StateDir, "checkpoints", "w1-T1.json"))
	json.Unmarshal(b, &first)
	res, _, _ := runTeam(t, cfg, 1500*time.Millisecond)
	b, _ = os.ReadFile(filepath.Join(cfg.StateDir, "checkpoints", "w1-T1.json"))
	json.Unmarshal(b, &second)
	aborted, _ := filepath.Glob(filepath.Join(cfg.StateDir, "checkpoints", "w1-T1_aborted_*.json"))
	if len(aborted) != 1 || first.StartedAt.IsZero() || !second.StartedAt.After(first.StartedAt) {
		t.Errorf("aborted %v; started_at %v then %v", aborted, first.StartedAt, second.StartedAt)
	}
	if res.Tasks[0].State == queue.Complete {
		t.Errorf("the task completed in 1.5 s of 50 steps")
	}
}

// A checkpoint whose git branch is gone is not resumed and does not fail
// its task: the task starts afresh from its prompt, told what could not be
// resumed, with a WARNING.
func TestResumeWithTheBranchGoneStartsAfresh(t *testing.T) {
	defer proctest.AssertNone(t)
	repo := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "start")
	git("checkout", "-q", "-b", "feature")
	cfg := writeTeam(t, fastTimers+`[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "w1", mode: "worker:steps=50"})
	cfg.Agents[0].Dir = repo
	runTeam(t, cfg, 1500*time.Millisecond)
	git("checkout", "-q", "main")
	git("branch", "-q", "-D", "feature")
	res, stdout, team := runTeamWith(t, cfg, 2*time.Second, resumeRun)
	if res.Tasks[0].State == queue.Failed {
		t.Fatalf("the task failed: %+v", res.Tasks[0])
	}
	if !strings.Contains(stdout, `WARNING: T1 cannot resume (its git branch "feature" is gone): it starts afresh`) {
		t.Errorf("stdout:\n%s", stdout)
	}
	if countEvents(eventsOf(t, cfg), event.TaskAfresh, "w1") != 1 {
		t.Errorf("no task_afresh event")
	}
	log, _ := os.ReadFile(team.dir.AgentLog("w1"))
	if !strings.Contains(string(log), "could not be resumed") || strings.Count(string(log), "RESUME-SEEN: You are resuming") != 0 {
		t.Errorf("the new session was not told, or resumed the old checkpoint:\n%s", log)
	}
}

// Every record is in the history; `--resume --from ID` resumes the task
// from that earlier record, not from the latest.
func TestResumeFromAnEarlierCheckpoint(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+`[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "w1", mode: "worker:steps=20"})
	runTeam(t, cfg, 3*time.Second)
	entries, err := state.ReadHistory(cfg.StateDir, "T1")
	if err != nil {
		t.Fatal(err)
	}
	var pick state.Entry
	for _, e := range entries { // the oldest answered request
		if e.Trigger == protocol.TriggerRequest {
			pick = e
		}
	}
	if pick.ID == "" || entries[0].Progress <= pick.Progress {
		t.Fatalf("history %+v", entries)
	}
	_, _, team := runTeamWith(t, cfg, 1500*time.Millisecond, func(team *Team) error {
		if err := team.ResumeFrom(pick.ID); err != nil {
			return err
		}
		_, err := team.Begin(StartReopen)
		return err
	})
	log, _ := os.ReadFile(team.dir.AgentLog("w1"))
	want := fmt.Sprintf("reached %d%%", pick.Progress)
	seen := strings.Split(string(log), "RESUME-SEEN: You are resuming")
	if len(seen) < 2 || !strings.Contains(seen[len(seen)-1], want) {
		t.Errorf("the resumed session was not told %q:\n%s", want, log)
	}
}
