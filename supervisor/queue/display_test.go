//go:build !e2e

package queue

import (
	"reflect"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/config"
)

// Time worked beside the estimate, as STATUS.md, the dashboard and the
// handoff say it.
func TestWorkedText(t *testing.T) {
	for _, c := range []struct {
		worked, estimate time.Duration
		want             string
	}{
		{0, 0, ""},
		{40 * time.Second, 0, "40s"},
		{25*time.Minute + 59*time.Second, 0, "25m"},
		{70 * time.Minute, 2 * time.Hour, "1h10m / est. 2h"},
		{0, 90 * time.Minute, "0s / est. 1h30m"},
		{2 * time.Hour, 2 * time.Hour, "2h / est. 2h"},
		{150 * time.Minute, 2 * time.Hour, "2h30m / est. 2h (over by 30m)"},
		{26*time.Hour + 5*time.Minute, 24 * time.Hour, "26h5m / est. 24h (over by 2h5m)"},
	} {
		if got := WorkedText(c.worked, c.estimate); got != c.want {
			t.Errorf("WorkedText(%s, %s) = %q, want %q", c.worked, c.estimate, got, c.want)
		}
	}
}

// A task its agent says is blocked (or that is held by a conflict) is
// "blocked"; one waiting for its blocked_by tasks is "waiting" — while
// state.json keeps the state "blocked" for the latter.
func TestLabelSaysBlockedOrWaiting(t *testing.T) {
	ts := []Status{
		{ID: "T1", State: Running, Summary: "blocked", Blockers: []string{"needs a key"}},
		{ID: "T2", State: Blocked, BlockedBy: []string{"T1", "T3"}},
		{ID: "T3", State: Complete, Summary: "blocked"}, // blocked once, complete now
		{ID: "T4", State: Blocked, Held: true, Reason: "the branches it starts from conflict (a.go)"},
		{ID: "T5", State: Pending, Summary: "blocked"}, // released by a stop, still blocked
		{ID: "T6", State: Running, Summary: "implementing"},
	}
	want := []string{"blocked", "waiting", "complete", "blocked", "blocked", "running"}
	for i, s := range ts {
		if got := s.Label(); got != want[i] {
			t.Errorf("%s: Label %q, want %q", s.ID, got, want[i])
		}
	}
	if got := Tally(ts); !reflect.DeepEqual(got, map[string]int{"blocked": 3, "waiting": 1, "complete": 1, "running": 1}) {
		t.Errorf("Tally = %v", got)
	}
	if got := WaitsFor(ts[1], ts); !reflect.DeepEqual(got, []string{"T1"}) {
		t.Errorf("T2 waits for %v, want [T1] (T3 is complete)", got)
	}
	if got := ts[3].BlockedOn(); len(got) != 1 || got[0] != ts[3].Reason {
		t.Errorf("a held task is blocked on %v", got)
	}
	if got := ts[0].BlockedOn(); !reflect.DeepEqual(got, []string{"needs a key"}) {
		t.Errorf("T1 is blocked on %v", got)
	}
}

// The queue keeps a checkpoint's seed fields until the next checkpoint,
// which replaces them all; the time worked counts the session under way on
// the queue's clock, and the estimate comes from the task.
func TestSnapshotHasSeedFieldsAndTimeWorked(t *testing.T) {
	now := time.Date(2026, 11, 23, 2, 0, 0, 0, time.UTC)
	q := New([]config.Task{{ID: "T1", Estimate: 2 * time.Hour}, {ID: "T2"}})
	q.SetClock(func() time.Time { return now })
	if task := q.Take("w1"); task == nil || task.ID != "T1" {
		t.Fatalf("took %+v", task)
	}
	q.NextAttempt("T1")
	q.Progress("T1", Checkpoint{Progress: 40, Status: "implementing", Phase: "build", CurrentStep: "the parser",
		SubtasksDone: 19, SubtasksTotal: 29, Errors: 2, At: now})
	now = now.Add(70 * time.Minute)
	s := q.Snapshot()[0]
	if s.Phase != "build" || s.CurrentStep != "the parser" || s.Subtasks() != "19/29" || s.Errors != 2 {
		t.Errorf("seed fields %+v", s)
	}
	if s.Worked() != "1h10m / est. 2h" {
		t.Errorf("worked %q while the session runs, want 1h10m / est. 2h", s.Worked())
	}
	q.AddWork("T1", 70*time.Minute) // the session ended
	now = now.Add(time.Hour)        // nobody works on it for an hour
	if s := q.Snapshot()[0]; s.Worked() != "1h10m / est. 2h" || q.Worked("T1") != 70*time.Minute {
		t.Errorf("after the session: %q, Worked %s", s.Worked(), q.Worked("T1"))
	}
	q.NextAttempt("T1")
	now = now.Add(80 * time.Minute)
	q.Progress("T1", Checkpoint{Progress: 60, Status: "testing", At: now})
	s = q.Snapshot()[0]
	if s.Worked() != "2h30m / est. 2h (over by 30m)" {
		t.Errorf("over the estimate: %q", s.Worked())
	}
	if s.Phase != "" || s.CurrentStep != "" || s.Subtasks() != "" || s.Errors != 0 {
		t.Errorf("a checkpoint without seed lines kept the last one's: %+v", s)
	}
	q.Set("T1", Failed, "gave up") // no session works on it any more
	now = now.Add(time.Hour)
	if s := q.Snapshot()[0]; s.Worked() != "1h10m / est. 2h" {
		t.Errorf("a failed task's time worked still grows: %q", s.Worked())
	}
	if s := q.Snapshot()[1]; s.Worked() != "" || s.EstimateSeconds != 0 {
		t.Errorf("a task never worked on, without an estimate: %q", s.Worked())
	}
}
