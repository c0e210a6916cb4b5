//go:build !e2e

package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Each wait ends as the events say — denied (the agent_resumed after it
// changes nothing), replaced by another dialog, answered by a person,
// with the session, or not at all — and lasts from its agent_waiting to
// that end, or to the end of a run whose supervisor died.
func TestWaitsEndAsTheEventsSay(t *testing.T) {
	r := newCrafted(t, "", true, 100).
		event(0, "run_started", "", "", "run_id", "R1", "how", "new").
		event(10, "agent_waiting", "a1", "T1", "kind", "permission", "text", "Run rm?").
		event(15, "dialog_denied", "a1", "T1").
		event(16, "agent_resumed", "a1", "T1").
		event(20, "agent_waiting", "a2", "T2", "kind", "question", "text", "Which one?").
		event(30, "agent_waiting", "a2", "T2", "kind", "permission", "text", "Edit a.go?").
		event(32, "agent_resumed", "a2", "T2").
		event(40, "agent_waiting", "a1", "T1", "kind", "permission", "text", "Push?").
		event(100, "dialog_answered", "a1", "T1", "by", "person", "via", "page", "choice", "deny").
		event(110, "agent_waiting", "a2", "T2", "kind", "permission", "text", "Fetch?").
		event(120, "agent_exited", "a2", "T2", "code", 143, "signal", "SIGTERM").
		event(130, "agent_waiting", "a1", "T1", "kind", "other", "text", "Still there?").
		event(150, "checkpoint_requested", "a2", "T2").
		build(1000)
	if r.Run.Ended != EndedInterrupted || !r.Run.EndedAt.Equal(at(150)) || r.Run.DurationSeconds != 150 {
		t.Errorf("run: %+v, want interrupted at its last event (150 s)", r.Run)
	}
	want := []struct {
		agent, ended string
		waited       float64
	}{{"a1", "denied", 5}, {"a2", "replaced", 10}, {"a2", "resumed", 2}, {"a1", "answered", 60}, {"a2", "session_ended", 10},
		{"a1", "run_ended", 20}}
	if len(r.Waits) != len(want) {
		t.Fatalf("waits: %+v", r.Waits)
	}
	for i, w := range want {
		if got := r.Waits[i]; got.Agent != w.agent || got.Ended != w.ended || got.WaitedSeconds != w.waited {
			t.Errorf("wait %d: %+v, want %s %s after %vs", i, got, w.agent, w.ended, w.waited)
		}
	}
	if a := r.Waits[3]; a.By != "person via page" || a.Choice != "deny" || a.Text != "Push?" {
		t.Errorf("the answered wait: %+v", a)
	}
	if r.Summary.Waits != 6 || r.Summary.WaitedSeconds != 107 || r.Agents[0].Waits != 3 || r.Agents[0].WaitedSeconds != 85 {
		t.Errorf("summary %+v, agents %+v", r.Summary, r.Agents)
	}
	if r.Agents[1].BadExits != 1 {
		t.Errorf("a2 killed by SIGTERM outside a team checkpoint: %+v", r.Agents[1])
	}

	// team_done ends the waits still open: their sessions ended with it.
	live := newCrafted(t, "", false, 0).
		event(0, "run_started", "", "", "run_id", "R1", "how", "new").
		event(10, "agent_waiting", "a1", "T1", "kind", "permission", "text", "Run rm?").
		event(70, "team_done", "", "", "exit_code", 130).
		build(500)
	if w := live.Waits[0]; w.Ended != "run_ended" || w.WaitedSeconds != 60 {
		t.Errorf("a wait the team_done ended: %+v", w)
	}
}

// A restart says why its session ended: a stall, an exit code, a signal,
// or warden restart; an exit during a team checkpoint is no bad exit. A
// stall written before agent_stalled said why (silent_for alone, which it
// carried whichever signal it was) is said as no progress.
func TestRestartsSayWhy(t *testing.T) {
	r := newCrafted(t, "stopped", false, 500).
		event(0, "run_started", "", "", "run_id", "R1", "how", "new").
		event(1, "agent_started", "a1", "T1").
		event(100, "agent_stalled", "a1", "T1", "silent_for", "30m0s").
		event(101, "agent_exited", "a1", "T1", "code", 143, "signal", "SIGTERM").
		event(102, "agent_restarted", "a1", "T1", "attempt", 2, "backoff", "1.234s").
		event(103, "agent_started", "a1", "T1").
		event(110, "agent_exited", "a1", "T1", "code", 2).
		event(111, "agent_restarted", "a1", "T1", "attempt", 3, "backoff", "2s").
		event(112, "agent_started", "a1", "T1").
		event(120, "agent_exited", "a1", "T1", "code", 137, "signal", "SIGKILL").
		event(121, "agent_restarted", "a1", "T1", "attempt", 4, "backoff", "4s").
		event(122, "agent_started", "a1", "T1").
		event(130, "agent_exited", "a1", "T1", "code", 0).
		event(131, "agent_restarted", "a1", "T1", "attempt", 5, "reason", "warden restart").
		event(132, "agent_started", "a1", "T1").
		event(200, "team_checkpoint_started", "", "", "reason", "stopped by the user (a signal)", "cause", "user_interrupt").
		event(201, "agent_exited", "a1", "T1", "code", 143, "signal", "SIGTERM").
		event(202, "checkpoint_complete", "", "").
		event(203, "team_done", "", "", "exit_code", 130).
		build(1000)
	want := []struct {
		why     string
		backoff string
	}{{"stalled (no progress for 30m0s)", "1.2s"}, {"exited with code 2", "2s"}, {"killed by SIGKILL", "4s"}, {"warden restart", ""}}
	if len(r.Restarts) != len(want) {
		t.Fatalf("restarts: %+v", r.Restarts)
	}
	for i, w := range want {
		if got := r.Restarts[i]; got.Why != w.why || got.Backoff != w.backoff || got.Attempt != i+2 || got.Task != "T1" {
			t.Errorf("restart %d: %+v, want %q (backoff %q)", i, got, w.why, w.backoff)
		}
	}
	a := r.Agents[0]
	if a.Sessions != 5 || a.Restarts != 4 || a.Stalls != 1 || a.BadExits != 3 || r.Tasks[0].Restarts != 4 {
		t.Errorf("a1 %+v, T1 %+v: want 5 sessions, 4 restarts, 1 stall, 3 bad exits (not the stop's)", a, r.Tasks[0])
	}
	if r.Run.Ended != EndedStopped || r.Run.ExitCode == nil || *r.Run.ExitCode != 130 || !r.Run.EndedAt.Equal(at(203)) ||
		r.Run.Why != "with tasks open; the last team checkpoint: stopped by the user (a signal)" {
		t.Errorf("run: %+v", r.Run)
	}
	if len(r.TeamCheckpoints) != 1 || !r.TeamCheckpoints[0].Complete || r.TeamCheckpoints[0].Cause != "user_interrupt" {
		t.Errorf("team checkpoints: %+v", r.TeamCheckpoints)
	}
}

// The report is of the run state.json names: the events of an earlier run
// before its first run_started, and those of a later one after a
// run_started of its own, are not counted; a carried-on run is one run.
func TestOnlyTheRunStateJSONNames(t *testing.T) {
	c := newCrafted(t, "finished", false, 500).
		event(-100, "run_started", "", "", "run_id", "R0", "how", "new").
		event(-90, "agent_restarted", "a1", "T1", "attempt", 2).
		event(-80, "checkpoint_received", "a1", "T1").
		event(0, "run_started", "", "", "run_id", "R1", "how", "new").
		event(10, "checkpoint_received", "a1", "T1").
		line(`{"ts":"2026-03-01T22:00:11Z","event":"checkpoint_rec`).
		event(20, "agent_restarted", "a1", "T1", "attempt", 2).
		event(50, "run_started", "", "", "run_id", "R1", "how", "carried_on", "reason", "its supervisor died").
		event(60, "checkpoint_received", "a1", "T1").
		event(70, "team_done", "", "", "exit_code", 1).
		event(600, "run_started", "", "", "run_id", "R2", "how", "new").
		event(610, "agent_restarted", "a1", "T1", "attempt", 2)
	r := c.build(1000)
	if r.Summary.Checkpoints != 2 || r.Summary.Restarts != 1 || len(r.Run.CarriedOn) != 1 ||
		r.Run.CarriedOn[0].Reason != "its supervisor died" || *r.Run.ExitCode != 1 {
		t.Errorf("summary %+v, run %+v", r.Summary, r.Run)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "1 lines of events.jsonl could not be read") {
		t.Errorf("notes: %q", r.Notes)
	}
	if r.Run.Why != "1 of 2 tasks complete; none of the others could go on" {
		t.Errorf("why: %q", r.Run.Why)
	}

	// No run_started of the run: its events since its start, and a note.
	lost := newCrafted(t, "finished", false, 500).
		event(-10, "checkpoint_received", "a1", "T1").
		event(10, "checkpoint_received", "a1", "T1").
		build(1000)
	if lost.Summary.Checkpoints != 1 || len(lost.Notes) != 1 || !strings.Contains(lost.Notes[0], "no run_started for this run") {
		t.Errorf("without run_started: %+v, notes %q", lost.Summary, lost.Notes)
	}
}

// No state.json, or one naming no run: ErrNoRun.
func TestNoRunIsErrNoRun(t *testing.T) {
	dir := t.TempDir()
	if _, err := Build(dir, base); !errors.Is(err, ErrNoRun) {
		t.Errorf("no state.json: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "state.json"), []byte(`{"team":"t"}`), 0o600)
	if _, err := Build(dir, base); !errors.Is(err, ErrNoRun) || !strings.Contains(err.Error(), "names no run") {
		t.Errorf("a run-less state.json: %v", err)
	}
}

// BenchmarkBuild: the report of a run of 50,000 events after earlier runs'
// 200,000 (an events.jsonl of 75 MB) — what team_done waits for at the end
// of a long night.
func BenchmarkBuild(b *testing.B) {
	c := newCrafted(b, "finished", false, 90000)
	c.event(-1000, "run_started", "", "", "run_id", "R0", "how", "new")
	pad := fmt.Sprintf("%0200d", 0)
	for i := range 200_000 {
		c.event(-999+i%999, "checkpoint_requested", "a1", "T1", "note", pad)
	}
	c.event(0, "run_started", "", "", "run_id", "R1", "how", "new")
	for i := range 50_000 {
		c.event(i%9000+1, "checkpoint_received", "a1", "T1", "checkpoint_id", fmt.Sprint("c", i), "note", pad)
	}
	c.build(90000)
	for b.Loop() {
		if r := c.report(90000); r.Summary.Checkpoints != 50_000 {
			b.Fatalf("%d checkpoints", r.Summary.Checkpoints)
		}
	}
	if fi, err := os.Stat(filepath.Join(c.root, "events.jsonl")); err == nil {
		b.ReportMetric(float64(fi.Size())/1e6, "MB")
	}
}

// A stall says why, from the event's own fields: no output; or output but
// no checkpoint (an agent that printed every 0.3 s was "stalled (no output
// for 8s)"); or answers that were all rejected, and for what.
func TestStallSaysWhyFromItsEvent(t *testing.T) {
	c := newCrafted(t, "finished", false, 500).
		event(0, "run_started", "", "", "run_id", "R1", "how", "new")
	stalls := [][]any{
		{"why", "silent", "silent_for", "8s"},
		{"why", "no_checkpoint", "no_checkpoint_for", "8s"},
		{"why", "no_checkpoint", "no_checkpoint_for", "8s", "rejected", `unknown status: "in_progress"`},
	}
	for i, kv := range stalls {
		sec := 10 * (i + 1)
		c.event(sec, "agent_started", "a1", "T1").
			event(sec+1, "agent_stalled", "a1", "T1", kv...).
			event(sec+2, "agent_exited", "a1", "T1", "code", 143, "signal", "SIGTERM").
			event(sec+3, "agent_restarted", "a1", "T1", "attempt", i+2, "backoff", "1s")
	}
	r := c.build(1000)
	want := []string{
		"stalled (no output for 8s)",
		"stalled (no checkpoint for 8s, though it printed)",
		`stalled (no valid checkpoint for 8s: its answers were rejected: unknown status: "in_progress")`,
	}
	if len(r.Restarts) != len(want) {
		t.Fatalf("restarts: %+v", r.Restarts)
	}
	page := unwrapped(Text(r))
	for i, w := range want {
		if got := r.Restarts[i].Why; got != w {
			t.Errorf("restart %d: why %q, want %q", i, got, w)
		}
		if !strings.Contains(page, "a1 on T1, attempt "+strconv.Itoa(i+2)+": "+w) {
			t.Errorf("the page does not say %q:\n%s", w, page)
		}
	}
}
