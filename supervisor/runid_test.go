//go:build e2e

package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/testrig/proctest"
)

// seedRun leaves the state dir of cfg as the supervisor of run id would
// have: state.json naming the run (ended "": its supervisor died), with
// tasks as given, and a store whose records are of that run, sealed with
// warden's key (seedLegacyRun: an older warden's, unsealed).
func seedRun(t *testing.T, cfg *config.Team, id string, tasks ...queue.Status) *state.Store {
	t.Helper()
	st := seedLegacyRun(t, cfg, id, tasks...)
	st.SetKey(recordKey(t))
	return st
}

// recordKey is the key warden seals records with (the user's).
func recordKey(t testing.TB) []byte {
	t.Helper()
	p, err := state.KeyPath(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	key, err := state.LoadKey(p)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// seedLegacyRun is seedRun as a warden before seals left it: its records
// carry none.
func seedLegacyRun(t *testing.T, cfg *config.Team, id string, tasks ...queue.Status) *state.Store {
	t.Helper()
	dir, err := state.Open(cfg.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]state.TaskSpec{}
	for _, task := range cfg.Tasks {
		specs[task.ID] = state.SpecOf(task)
	}
	snap := state.Snapshot{Team: cfg.Name, RunID: id, RunStartedAt: time.Now().Add(-time.Hour), Specs: specs,
		Running: true, StartedAt: time.Now().Add(-time.Hour), UpdatedAt: time.Now().Add(-time.Minute), Tasks: tasks}
	if err := dir.WriteSnapshot(snap); err != nil {
		t.Fatal(err)
	}
	st, err := state.NewStore(testLogger(t), dir.Checkpoints(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	st.SetRun(id)
	return st
}

// record is a checkpoint of w1 on T1 at progress p, made ago.
func record(id string, p int, ago time.Duration) *protocol.Checkpoint {
	return &protocol.Checkpoint{CheckpointID: id, Agent: "w1", TaskID: "T1", Status: protocol.StatusImplementing,
		ProgressPercent: p, Resumable: true, Remaining: []string{"the rest"},
		ResumeInstructions: fmt.Sprintf("carry on from %d", p), UpdatedAt: time.Now().Add(-ago)}
}

const oneTask = fastTimers + `[[task]]
id = "T1"
prompt = "Work."
`

// A latest record that does not parse is restored from the newest intact
// copy — the history, which holds the record lost — not from the backup
// one record older, and stdout and the events say so.
func TestTornCheckpointIsRestoredFromTheNewestCopy(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, oneTask, fakeAgent{name: "w1", mode: "worker:steps=10"})
	st := seedRun(t, cfg, "R1")
	for i, p := range []int{20, 40, 60} {
		if err := st.Save(record(fmt.Sprintf("w1-T1-%d", i), p, time.Duration(3-i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(cfg.StateDir, "checkpoints", "w1-T1.json"), []byte(`{"agent": "w1", "task_`), 0o600)

	res, stdout, team := runTeamWith(t, cfg, 60*time.Second, resumeRun)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode(), stdout)
	}
	want := "WARNING: checkpoint w1-T1.json did not parse: restored from " + filepath.Join("history", "T1", "w1-T1-2.json") + " (implementing, 60%"
	if !strings.Contains(stdout, want) {
		t.Errorf("want %q on stdout:\n%s", want, stdout)
	}
	e := firstEvent(eventsOf(t, cfg), event.CheckpointRestored)
	if e == nil || e["from"] != filepath.Join("history", "T1", "w1-T1-2.json") || e["checkpoint_id"] != "w1-T1-2" {
		t.Errorf("checkpoint_restored %v", e)
	}
	log, _ := os.ReadFile(team.dir.AgentLog("w1"))
	if !strings.Contains(string(log), "RESUME-SEEN: Resume instructions from the previous session: carry on from 60") {
		t.Errorf("the session did not resume from the newest record:\n%s", log)
	}
}

// With no intact copy at all, the loss is said on stdout, the file is put
// aside (reported once), and the task starts from its prompt.
func TestTornCheckpointWithNoCopyIsSaidLost(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, oneTask, fakeAgent{name: "w1", mode: "worker:steps=2"})
	seedRun(t, cfg, "R1")
	os.WriteFile(filepath.Join(cfg.StateDir, "checkpoints", "w1-T1.json"), []byte(`{"agent": "w1", "task_`), 0o600)

	res, stdout, _ := runTeamWith(t, cfg, 60*time.Second, resumeRun)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode(), stdout)
	}
	if n := strings.Count(stdout, "WARNING: checkpoint w1-T1.json did not parse and no intact copy of it is left"); n != 1 {
		t.Errorf("the loss said %d times on stdout:\n%s", n, stdout)
	}
	if aside, _ := filepath.Glob(filepath.Join(cfg.StateDir, "checkpoints", "w1-T1.json.corrupt-*")); len(aside) != 1 {
		t.Errorf("the torn file was not put aside: %v", aside)
	}
	if e := firstEvent(eventsOf(t, cfg), event.CheckpointRestored); e == nil || e["from"] != "" {
		t.Errorf("checkpoint_restored %v", e)
	}
}

// A record older than stale_failure is resumed with a note in the first
// prompt, a WARNING and resume_stale.
func TestAnHoursOldCheckpointIsResumedWithANote(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, oneTask, fakeAgent{name: "w1", mode: "worker:steps=4"})
	st := seedRun(t, cfg, "R1")
	st.Save(record("w1-T1-old", 50, 2*time.Hour))

	res, stdout, team := runTeamWith(t, cfg, 60*time.Second, resumeRun)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode(), stdout)
	}
	if !strings.Contains(stdout, "WARNING: T1 resumes from a checkpoint 2h0m0s old (older than stale_failure 2m0s)") {
		t.Errorf("stdout:\n%s", stdout)
	}
	e := firstEvent(eventsOf(t, cfg), event.ResumeStale)
	if e == nil || e["checkpoint_id"] != "w1-T1-old" || e["age"] != "2h0m0s" {
		t.Errorf("resume_stale %v", e)
	}
	log, _ := os.ReadFile(team.dir.AgentLog("w1"))
	if !strings.Contains(string(log), "older than the team's stale_failure") || !strings.Contains(string(log), "reached 50%") {
		t.Errorf("the session was not told its checkpoint is old:\n%s", log)
	}
}

// A record the agent said cannot be resumed ("Resumable: no") is not
// resumed from, with a reason.
func TestAnUnresumableCheckpointIsRefused(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, oneTask, fakeAgent{name: "w1", mode: "worker:steps=2"})
	st := seedRun(t, cfg, "R1")
	blocks, _ := protocol.ParseBlocks("CHECKPOINT: T1\nStatus: implementing\nCompleted:\n- half the migration\n" +
		"Remaining:\n- the rest\nFiles Modified: db.sql\nEstimated Progress: 50%\nResumable: no\n")
	if len(blocks) != 1 {
		t.Fatalf("blocks %v", blocks)
	}
	cp := protocol.NewRecord(blocks[0], protocol.Origin{Agent: "w1", Trigger: protocol.TriggerRequest,
		StartedAt: time.Now().Add(-time.Hour), At: time.Now().Add(-time.Minute)})
	if cp.Resumable {
		t.Fatal("Resumable: no made a resumable record")
	}
	st.Save(&cp)

	res, stdout, team := runTeamWith(t, cfg, 60*time.Second, resumeRun)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode(), stdout)
	}
	if !strings.Contains(stdout, "WARNING: T1 is not resumed from its checkpoint: its last checkpoint "+cp.CheckpointID+
		" (status implementing, 50%) says it cannot be resumed from (Resumable: no)") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if countEvents(eventsOf(t, cfg), event.TaskAfresh, "w1") != 1 {
		t.Errorf("no task_afresh")
	}
	log, _ := os.ReadFile(team.dir.AgentLog("w1"))
	if strings.Contains(string(log), "You are resuming") || !strings.Contains(string(log), "said cannot be resumed") {
		t.Errorf("the session resumed from the refused record, or was not told:\n%s", log)
	}
}

// A task its agent reported complete whose verify never finished (the team
// stopped while it ran) is carried on to be verified: its session resumes
// from the complete record, told so, and the task completes once the
// verify passes — the work is not started over.
func TestAReportedDoneTaskIsVerifiedWhenCarriedOn(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+`[[task]]
id = "T1"
prompt = "Work."
verify = ["true"]
`, fakeAgent{name: "w1", mode: "worker:steps=4"})
	st := seedRun(t, cfg, "R1")
	done := record("w1-T1-done", 100, time.Minute)
	done.Status, done.Resumable = protocol.StatusComplete, false
	st.Save(done)

	res, stdout, team := runTeamWith(t, cfg, 60*time.Second, resumeRun)
	if res.ExitCode() != 0 || !strings.Contains(stdout, "TASK COMPLETE: T1") {
		t.Fatalf("exit %d\n%s", res.ExitCode(), stdout)
	}
	if strings.Contains(stdout, "implementing (25%)") || strings.Contains(stdout, "WARNING: T1 is not resumed") {
		t.Errorf("the task was started over:\n%s", stdout)
	}
	log, _ := os.ReadFile(team.dir.AgentLog("w1"))
	if !strings.Contains(string(log), "reached 100%") || !strings.Contains(string(log), "so that it is verified") {
		t.Errorf("the session was not told it is there to have the task verified:\n%s", log)
	}
}

// Records and archives of another run are history: an earlier run's
// -complete archive completes nothing, its _aborted_ record is no resume
// point; the task resumes from its record of the run carried on.
func TestAnotherRunsRecordsAreHistory(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+`[[task]]
id = "T1"
prompt = "Work."
agent = "w1"
[[task]]
id = "T2"
prompt = "Work too."
agent = "w2"
`, fakeAgent{name: "w1", mode: "worker:steps=10"}, fakeAgent{name: "w2", mode: "worker:steps=2"})
	st := seedRun(t, cfg, "R0")
	done := record("w1-T1-r0", 100, 2*time.Hour)
	done.Status = protocol.StatusComplete
	st.Save(done)
	if err := st.Archive("w1", "T1"); err != nil {
		t.Fatal(err)
	}
	open := record("w2-T2-r0", 50, 2*time.Hour)
	open.Agent, open.TaskID = "w2", "T2"
	st.Save(open)
	if _, err := st.ArchiveOpen(); err != nil {
		t.Fatal(err)
	}
	st = seedRun(t, cfg, "R1") // the next night's run, killed with T1 at 30 %
	st.Save(record("w1-T1-r1", 30, time.Minute))

	res, stdout, team := runTeamWith(t, cfg, 60*time.Second, resumeRun)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode(), stdout)
	}
	if !strings.HasPrefix(stdout, "CARRYING ON: run R1 ") {
		t.Errorf("the first line does not say what is carried on:\n%s", stdout)
	}
	for _, want := range []string{"CHECKPOINT: T1 - complete (100%)", "CHECKPOINT: T2 - complete (100%)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q: a task was taken as complete without its agent completing it:\n%s", want, stdout)
		}
	}
	log1, _ := os.ReadFile(team.dir.AgentLog("w1"))
	if !strings.Contains(string(log1), "reached 30%") {
		t.Errorf("T1 did not resume from this run's 30%% record:\n%s", log1)
	}
	log2, _ := os.ReadFile(team.dir.AgentLog("w2"))
	if strings.Contains(string(log2), "You are resuming") {
		t.Errorf("T2 resumed from the earlier run's _aborted_ record:\n%s", log2)
	}
}

// What a run carried on knew stays: a task that failed in it stays failed,
// and max_attempts counts the sessions the run started before.
func TestCarryingOnKeepsFailuresAndAttempts(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+`[[task]]
id = "T1"
prompt = "Work."
[[task]]
id = "T2"
prompt = "Work."
max_attempts = 3
`, fakeAgent{name: "w1", mode: "worker:steps=2"})
	seedRun(t, cfg, "R1", queue.Status{ID: "T1", State: queue.Failed, Reason: "max_time 1h0m0s reached", Attempt: 2},
		queue.Status{ID: "T2", State: queue.Running, Attempt: 3, Owner: "w1"})

	res, stdout, _ := runTeamWith(t, cfg, 60*time.Second, resumeRun)
	if res.ExitCode() != 1 {
		t.Fatalf("exit %d, want 1\n%s", res.ExitCode(), stdout)
	}
	if !strings.Contains(stdout, "WARNING: T1 failed earlier in this run (max_time 1h0m0s reached): it stays failed") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if !strings.Contains(stdout, "TASK FAILED: T2 (max_attempts 3 reached)") {
		t.Errorf("max_attempts did not count the sessions of the run before:\n%s", stdout)
	}
}

// A team file edited between a stop and carrying on is taken as it now
// is, with a line for each difference.
func TestCarryingOnSaysWhatTheTeamFileChanged(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+`[[task]]
id = "T1"
prompt = "Work."
[[task]]
id = "T2"
prompt = "Work."
`, fakeAgent{name: "w1", mode: "worker:steps=1"})
	seedRun(t, cfg, "R1")
	cfg.Tasks[1].Prompt = "Work harder."
	cfg.Tasks = append(cfg.Tasks, config.Task{ID: "T3", Prompt: "New."})
	cfg.Tasks = cfg.Tasks[1:] // T1 removed
	res, stdout, _ := runTeamWith(t, cfg, 60*time.Second, resumeRun)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode(), stdout)
	}
	for _, want := range []string{
		"TEAM FILE: task T2 changed in the team file (prompt): it carries on from its checkpoint as the file now says",
		"TEAM FILE: task T3 is new in the team file: it starts from its prompt",
		"TEAM FILE: task T1 is no longer in the team file: its records stay as history",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q:\n%s", want, stdout)
		}
	}
}

// After `--resume --from` the session's attempt number and the one its
// first prompt names are one: the queue's count of the task's sessions
// (the run's two, then this third), not the chosen record's attempt plus
// one (issue 31: agent_started said attempt 3, the prompt "attempt 2").
func TestTheFirstPromptNamesTheSessionsAttempt(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, oneTask, fakeAgent{name: "w1", mode: "worker:steps=10"})
	st := seedRun(t, cfg, "R1", queue.Status{ID: "T1", State: queue.Running, Attempt: 2, Owner: "w1"})
	chosen := record("w1-T1-first", 20, 30*time.Second)
	chosen.Attempt = 1
	st.Save(chosen)
	newest := record("w1-T1-second", 60, 20*time.Second)
	newest.Attempt = 2
	st.Save(newest)

	_, stdout, team := runTeamWith(t, cfg, 60*time.Second, func(team *Team) error {
		if err := team.ResumeFrom("w1-T1-first"); err != nil {
			return err
		}
		_, err := team.Begin(StartReopen)
		return err
	})
	started := firstEvent(eventsOf(t, cfg), event.AgentStarted)
	if started == nil || fmt.Sprint(started["attempt"]) != "3" {
		t.Fatalf("agent_started %v, want attempt 3\n%s", started, stdout)
	}
	log, _ := os.ReadFile(team.dir.AgentLog("w1"))
	if !strings.Contains(string(log), "RESUME-SEEN: You are resuming task T1 (attempt 3). The previous session reached 20%") {
		t.Errorf("the first prompt does not name the session's attempt 3:\n%s", log)
	}
}

// A task reopened with --from after it completed, which then failed in
// the run (its attempts spent), stays failed when the run is carried on
// again: its older complete archive does not make it complete (the
// simulation's one-story check found state.json saying complete while the
// events said failed, seed 724).
func TestCarryingOnAReopenedTaskThatFailedKeepsItFailed(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, oneTask, fakeAgent{name: "w1", mode: "worker:steps=2"})
	st := seedRun(t, cfg, "R1", queue.Status{ID: "T1", State: queue.Failed, Reason: "max_attempts 3 reached", Attempt: 3})
	done := record("w1-T1-done", 100, 10*time.Minute)
	done.Status, done.RunID = protocol.StatusComplete, "R1"
	if err := st.Save(done); err != nil {
		t.Fatal(err)
	}
	if err := st.Archive("w1", "T1"); err != nil {
		t.Fatal(err)
	}
	res, stdout, _ := runTeamWith(t, cfg, 30*time.Second, resumeRun)
	if res.Tasks[0].State != queue.Failed || res.ExitCode() != 1 {
		t.Errorf("T1 %s, exit %d; want failed, 1\n%s", res.Tasks[0].State, res.ExitCode(), stdout)
	}
	if !strings.Contains(stdout, "WARNING: T1 failed earlier in this run (max_attempts 3 reached)") {
		t.Errorf("stdout:\n%s", stdout)
	}
}
