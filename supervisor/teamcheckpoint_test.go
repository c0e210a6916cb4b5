//go:build e2e

package supervisor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
)

const longTasks = `checkpoint_interval = "100ms"
checkpoint_timeout = "2s"
shutdown_timeout = "1s"
[[task]]
id = "T1"
title = "first"
prompt = "Work on the first."
[[task]]
id = "T2"
title = "second"
prompt = "Work on the second."
`

// startTeam runs a team in the background; wait returns its result.
func startTeam(t *testing.T, header string, agents ...fakeAgent) (*Team, *syncBuffer, func() Result) {
	t.Helper()
	return startTeamCfg(t, writeTeam(t, header, agents...))
}

// startTeamCfg runs the team of cfg in the background; wait returns its result.
func startTeamCfg(t testing.TB, cfg *config.Team) (*Team, *syncBuffer, func() Result) {
	t.Helper()
	return startTeamWith(t, cfg, nil)
}

// startTeamWith is startTeamCfg with a step between New and Run.
func startTeamWith(t testing.TB, cfg *config.Team, prepare func(*Team)) (*Team, *syncBuffer, func() Result) {
	t.Helper()
	out := &syncBuffer{}
	team, err := New(testLogger(t), cfg, clock.Real{}, out)
	if err != nil {
		t.Fatal(err)
	}
	if prepare != nil {
		prepare(team)
	}
	var res Result
	done := make(chan struct{})
	go func() { res = runWithEdges(team); close(done) }()
	// A test that fails before it waits for its team still ends it: a team
	// outliving its test logs into a finished test (a data race) and keeps
	// its agents running into the next test.
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			team.Force()
			<-done
		}
	})
	return team, out, func() Result {
		select {
		case <-done:
			return res
		case <-time.After(30 * time.Second):
			team.Force()
			<-done
			t.Fatal("team did not end")
			return res
		}
	}
}

// waitFor polls cond for up to 20s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitForD(t, what, 20*time.Second, cond)
}

func TestSignalFileRunsTeamCheckpointAndRehydrates(t *testing.T) {
	defer proctest.AssertNone(t)
	team, out, wait := startTeam(t, longTasks,
		fakeAgent{name: "w1", mode: "worker:steps=1000"},
		fakeAgent{name: "w2", mode: "worker:steps=1000"})
	waitFor(t, "both tasks checkpointed", func() bool {
		s := out.String()
		return strings.Contains(s, "CHECKPOINT: T1 - implementing") && strings.Contains(s, "CHECKPOINT: T2 - implementing")
	})
	// An atomic rename onto the signal file's name, as most tools write.
	tmp := team.cfg.SignalFile + ".tmp"
	os.WriteFile(tmp, []byte("please"), 0o600)
	os.Rename(tmp, team.cfg.SignalFile)

	waitFor(t, "rehydration", func() bool {
		return countEvents(eventsOf(t, team.cfg), event.TeamRehydrated, "") == 1 &&
			countEvents(eventsOf(t, team.cfg), event.AgentStarted, "") >= 4
	})
	if _, err := os.Stat(team.cfg.SignalFile); !os.IsNotExist(err) {
		t.Errorf("signal file not deleted after the team checkpoint: %v", err)
	}
	handoffMD, err := os.ReadFile(filepath.Join(team.cfg.StateDir, "handoff.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Reason: signal file checkpoint-needed appeared", "| T1 | first |", "| T2 | second |",
		"### T1: first", "### T2: second", "Resume instructions from the previous session: continue with step"} {
		if !bytes.Contains(handoffMD, []byte(want)) {
			t.Errorf("handoff.md lacks %q:\n%s", want, handoffMD)
		}
	}
	// The rehydrated sessions got the handoff and their last checkpoint.
	waitFor(t, "the fresh sessions read their prompt", func() bool {
		log, _ := os.ReadFile(team.dir.AgentLog("w1"))
		return bytes.Contains(log, []byte("RESUME-SEEN: # Handoff: ")) && bytes.Contains(log, []byte("RESUME-SEEN: You are resuming task"))
	})
	evs := eventsOf(t, team.cfg)
	var triggers []string
	for _, e := range evs {
		if e["event"] == event.CheckpointReceived {
			triggers = append(triggers, e["trigger"].(string))
		}
	}
	if !strings.Contains(strings.Join(triggers, ","), "team_checkpoint") {
		t.Errorf("no checkpoint recorded with trigger team_checkpoint: %v", triggers)
	}
	// Agents that answer the last call at once never time out on it (the
	// timeout once counted from a request time never set).
	if n := countEvents(evs, event.CheckpointTimeout, ""); n != 0 {
		t.Errorf("%d checkpoint_timeout events though every agent answered", n)
	}

	team.Stop(true) // Ctrl-C: a second team checkpoint, then exit 130
	res := wait()
	if res.ExitCode() != 130 {
		t.Errorf("exit %d, want 130", res.ExitCode())
	}
	if n := strings.Count(out.String(), "\nCHECKPOINT COMPLETE\n"); n != 2 {
		t.Errorf("CHECKPOINT COMPLETE printed %d times, want 2 (signal file, Ctrl-C):\n%s", n, out.String())
	}
	kept, _ := filepath.Glob(filepath.Join(team.cfg.StateDir, "handoffs", "*.md"))
	if len(kept) != 2 {
		t.Errorf("handoffs/ has %v, want 2", kept)
	}
}

func TestAfterTeamCheckpointExit(t *testing.T) {
	defer proctest.AssertNone(t)
	team, out, wait := startTeam(t, `after_team_checkpoint = "exit"
`+longTasks, fakeAgent{name: "w1", mode: "worker:steps=1000"})
	waitFor(t, "a checkpoint", func() bool { return strings.Contains(out.String(), "CHECKPOINT: T1") })
	os.WriteFile(team.cfg.SignalFile, nil, 0o600)
	res := wait()
	if res.ExitCode() != 1 || res.Stopped {
		// tasks are open, so not 0; not a user stop
		t.Errorf("result %+v", res)
	}
	if !strings.HasSuffix(out.String(), "CHECKPOINT COMPLETE\n") {
		t.Errorf("stdout does not end with CHECKPOINT COMPLETE:\n%s", out.String())
	}
	if countEvents(eventsOf(t, team.cfg), event.TeamRehydrated, "") != 0 {
		t.Error("rehydrated with after_team_checkpoint = exit")
	}
}

func TestLeadCheckpointCompleteStopsAndRehydrates(t *testing.T) {
	defer proctest.AssertNone(t)
	team, out, wait := startTeam(t, longTasks,
		fakeAgent{name: "lead", mode: "worker:steps=1000:lead=1", lead: true},
		fakeAgent{name: "w2", mode: "worker:steps=1000"})
	waitFor(t, "rehydration", func() bool {
		return countEvents(eventsOf(t, team.cfg), event.TeamRehydrated, "") == 1
	})
	team.Stop(true)
	wait()
	md, _ := os.ReadFile(filepath.Join(team.cfg.StateDir, "handoffs"))
	_ = md
	kept, _ := filepath.Glob(filepath.Join(team.cfg.StateDir, "handoffs", "*.md"))
	if len(kept) == 0 {
		t.Fatal("no handoff")
	}
	first, _ := os.ReadFile(kept[0])
	if !bytes.Contains(first, []byte("Ended by the team lead lead with CHECKPOINT COMPLETE")) {
		t.Errorf("handoff does not name the lead:\n%s", first)
	}
	// warden printed CHECKPOINT COMPLETE for the lead's checkpoint; the lead's own
	// line went to its log, not to warden's stdout.
	if !strings.Contains(out.String(), "TEAM CHECKPOINT: agent lead printed CHECKPOINT COMPLETE") {
		t.Errorf("stdout:\n%s", out.String())
	}
}

// CHECKPOINT COMPLETE from an agent not marked lead = true ends nothing: it
// is rejected (checkpoint_rejected), and the team works on.
func TestCheckpointCompleteFromANonLeadIsIgnored(t *testing.T) {
	defer proctest.AssertNone(t)
	team, _, wait := startTeam(t, longTasks,
		fakeAgent{name: "w1", mode: "worker:steps=1000:lead=1"},
		fakeAgent{name: "w2", mode: "worker:steps=1000"})
	waitFor(t, "the rejection", func() bool {
		for _, e := range eventsOf(t, team.cfg) {
			if e["event"] == event.CheckpointRejected && strings.Contains(e["reason"].(string), "not a lead") {
				return true
			}
		}
		return false
	})
	time.Sleep(300 * time.Millisecond)
	team.Stop(true)
	wait()
	if e := firstEvent(eventsOf(t, team.cfg), event.TeamCheckpointStarted); e == nil || e["cause"] != "user_interrupt" {
		t.Errorf("the first team checkpoint: %v (the non-lead's line must not start one)", e)
	}
}

func TestHandoffFailureGivesNoCheckpointComplete(t *testing.T) {
	defer proctest.AssertNone(t)
	team, out, wait := startTeam(t, longTasks, fakeAgent{name: "w1", mode: "worker:steps=1000"})
	waitFor(t, "a checkpoint", func() bool { return strings.Contains(out.String(), "CHECKPOINT: T1") })
	// handoffs/ cannot be created: a file is in its place (root ignores
	// permission bits, so a read-only directory would not stop it).
	os.WriteFile(filepath.Join(team.cfg.StateDir, "handoffs"), []byte("in the way"), 0o600)
	os.WriteFile(team.cfg.SignalFile, nil, 0o600)
	res := wait()
	if res.Err == nil || res.ExitCode() == 0 {
		t.Fatalf("result %+v, want the handoff error and a non-zero exit", res)
	}
	if strings.Contains(out.String(), "CHECKPOINT COMPLETE") {
		t.Errorf("CHECKPOINT COMPLETE printed although no handoff was written:\n%s", out.String())
	}
	if _, err := os.Stat(team.cfg.SignalFile); err != nil {
		t.Errorf("signal file removed after a failed team checkpoint: %v", err)
	}
}

func TestStubbornAgentsAreKilledDuringTeamCheckpoint(t *testing.T) {
	defer proctest.AssertNone(t)
	team, out, wait := startTeam(t, `checkpoint_interval = "100ms"
checkpoint_timeout = "300ms"
shutdown_timeout = "500ms"
after_team_checkpoint = "exit"
`, fakeAgent{name: "a", mode: "grandchild:ignore:idle"}, fakeAgent{name: "b", mode: "escape:ignore:idle"},
		fakeAgent{name: "c", mode: "idle"})
	waitStarted(t, team)
	os.WriteFile(team.cfg.SignalFile, nil, 0o600)
	wait()
	if !strings.Contains(out.String(), "CHECKPOINT COMPLETE\n") {
		t.Errorf("stdout:\n%s", out.String())
	}
	evs := eventsOf(t, team.cfg)
	if countEvents(evs, event.AgentForceTerminated, "a") != 1 || countEvents(evs, event.AgentForceTerminated, "c") != 0 {
		t.Errorf("force events: %v", evs)
	}
	md, _ := os.ReadFile(filepath.Join(team.cfg.StateDir, "handoff.md"))
	if !bytes.Contains(md, []byte("| a | plain | worker | - | stopped (killed after shutdown_timeout) |")) {
		t.Errorf("handoff does not say which agents needed force:\n%s", md)
	}
}

// A team checkpoint that asks an agent no one has asked before (its first
// regular request is an hour away): the agent answers at once, so its last
// call does not time out (the timeout once ran from a request time that was
// never set, and fired 50 µs after the request).
func TestLastCallBeforeAnyRequestDoesNotTimeOut(t *testing.T) {
	defer proctest.AssertNone(t)
	team, out, wait := startTeam(t, `checkpoint_interval = "1h"
checkpoint_timeout = "2s"
shutdown_timeout = "1s"
[[task]]
id = "T1"
prompt = "Work."
`, fakeAgent{name: "w1", mode: "worker:steps=1000"})
	waitFor(t, "the task dispatched", func() bool {
		log, _ := os.ReadFile(team.dir.AgentLog("w1"))
		return bytes.Contains(log, []byte("Work."))
	})
	team.Stop(true)
	wait()
	evs := eventsOf(t, team.cfg)
	if n := countEvents(evs, event.CheckpointTimeout, "w1"); n != 0 {
		t.Errorf("%d checkpoint_timeout for an agent that answered:\n%s", n, out.String())
	}
	if e := firstEvent(evs, event.CheckpointReceived); e == nil || e["trigger"] != "team_checkpoint" {
		t.Errorf("the last call's answer: %v", e)
	}
}

// A task whose last checkpoint says it cannot be resumed from (Resumable:
// no) is shown as such in handoff.md, and the fresh session's first prompt
// — the handoff in it included — never tells it it resumes the task from
// that record: the handoff, the prompt and stdout agree that it starts
// from its prompt (issue 31).
func TestAnUnresumableTaskIsNotResumedInTheHandoff(t *testing.T) {
	defer proctest.AssertNone(t)
	team, out, wait := startTeam(t, `checkpoint_interval = "100ms"
checkpoint_timeout = "2s"
shutdown_timeout = "1s"
[[task]]
id = "U1"
title = "migrate"
prompt = "Migrate the database."
`, fakeAgent{name: "w1", mode: "worker:steps=20:resumable=no"})
	waitFor(t, "an unresumable checkpoint", func() bool { return strings.Contains(out.String(), "CHECKPOINT: U1 - implementing (10%)") })
	if err := os.WriteFile(team.cfg.SignalFile, []byte("please"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the fresh session read its prompt", func() bool {
		log, _ := os.ReadFile(team.dir.AgentLog("w1"))
		return countEvents(eventsOf(t, team.cfg), event.TeamRehydrated, "") == 1 && bytes.Contains(log, []byte("RESUME-SEEN: # Handoff: "))
	})
	team.Stop(true)
	wait()

	kept, _ := filepath.Glob(filepath.Join(team.cfg.StateDir, "handoffs", "handoff-*.md"))
	if len(kept) == 0 {
		t.Fatal("no handoff kept")
	}
	first, err := os.ReadFile(kept[0]) // the team checkpoint's, before the stop's
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"You are resuming task U1", "Already completed (do not redo)"} {
		if bytes.Contains(first, []byte(bad)) {
			t.Errorf("handoff.md says %q of a record that cannot be resumed from:\n%s", bad, first)
		}
	}
	if !bytes.Contains(first, []byte("says it cannot be resumed from (Resumable: no)")) {
		t.Errorf("handoff.md does not say the record cannot be resumed from:\n%s", first)
	}
	log, _ := os.ReadFile(team.dir.AgentLog("w1"))
	if bytes.Contains(log, []byte("RESUME-SEEN: You are resuming")) {
		t.Errorf("the fresh session was told it resumes the task:\n%s", log)
	}
	if !strings.Contains(out.String(), "WARNING: U1 is not resumed from its checkpoint") {
		t.Errorf("stdout does not say the task starts from its prompt:\n%s", out.String())
	}
}

// The handoff's notes on a task speak of the record its next session
// resumes from: after `--resume --from` the chosen record, not the task's
// newest one, even for a task no session took up before the team
// checkpoint (here T1, waiting for T2).
func TestTheHandoffSpeaksOfTheRecordTheTaskResumesFrom(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+`after_team_checkpoint = "exit"
[[task]]
id = "T1"
prompt = "Work."
blocked_by = ["T2"]
[[task]]
id = "T2"
prompt = "Work too."
`, fakeAgent{name: "w1", mode: "worker:steps=1000"})
	st := seedRun(t, cfg, "R1")
	st.Save(record("w1-T1-chosen", 20, 30*time.Second))
	st.Save(record("w1-T1-newest", 60, 20*time.Second))
	team, out, wait := startTeamWith(t, cfg, func(team *Team) {
		if err := team.ResumeFrom("w1-T1-chosen"); err != nil {
			t.Fatal(err)
		}
		if _, err := team.Begin(StartReopen); err != nil {
			t.Fatal(err)
		}
	})
	waitFor(t, "T2 at work", func() bool { return strings.Contains(out.String(), "CHECKPOINT: T2 - implementing") })
	if err := os.WriteFile(team.cfg.SignalFile, []byte("please"), 0o600); err != nil {
		t.Fatal(err)
	}
	wait()
	md, err := os.ReadFile(filepath.Join(cfg.StateDir, "handoff.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, notes, _ := strings.Cut(string(md), "### T1")
	notes, _, _ = strings.Cut(notes, "###")
	if !strings.Contains(notes, "reached 20%") || !strings.Contains(notes, "carry on from 20") || strings.Contains(notes, "60%") {
		t.Errorf("T1's notes do not speak of the chosen record (20%%):\n%s", md)
	}
}
