//go:build !e2e

package sim

import (
	"strings"
	"testing"
	"time"
)

// overlapNight is issue 37's two agents on sibling tasks that edit one
// file: a (T1) answers in 0.5 s and completes at its fourth answer, b (T2)
// answers in 1 s — its first record names src/shared.go after a's did —
// and completes at its third. bFiles is what b's records name.
func overlapNight(worktree bool, onOverlap string, bFiles []string) Spec {
	return Spec{Seed: 37, Worktree: worktree, Rehydrate: true, Night: 2 * time.Minute, OnOverlap: onOverlap,
		Timers: Timers{Interval: 2 * time.Second, Timeout: 30 * time.Second, Shutdown: 3 * time.Second,
			StaleWarning: 10 * time.Minute, StaleFailure: 30 * time.Minute},
		Agents: []AgentSpec{
			{Name: "a", Restart: "on-failure", MaxRestarts: 5, Persona: Persona{AnswerMin: 500 * time.Millisecond,
				AnswerMax: 500 * time.Millisecond, CompleteAfter: 4, Files: []string{"./src/shared.go", "a.go"}}},
			{Name: "b", Restart: "on-failure", MaxRestarts: 5, Persona: Persona{AnswerMin: time.Second,
				AnswerMax: time.Second, CompleteAfter: 3, Files: bFiles}},
		},
		Tasks: []TaskSpec{{ID: "T1", Agent: "a"}, {ID: "T2", Agent: "b"}},
	}
}

func eventsNamed(evs []Event, name string) []Event {
	var out []Event
	for _, e := range evs {
		if e.Name() == name {
			out = append(out, e)
		}
	}
	return out
}

// TestOverlapIsSaidOnce: with on_overlap left at "warn", the two records
// naming src/shared.go (one as ./src/shared.go) make one overlap and
// one WARNING line however many records follow; both tasks go on and
// complete. In a worktree each task's path is its repository's.
func TestOverlapIsSaidOnce(t *testing.T) {
	for _, worktree := range []bool{false, true} {
		t.Run(map[bool]string{true: "worktree", false: "shared"}[worktree], func(t *testing.T) {
			w := CheckSpec(t, overlapNight(worktree, "", []string{"src/shared.go", "b.go"}))
			evs := w.eventsNow()
			ov := eventsNamed(evs, "overlap")
			if len(ov) != 1 {
				t.Fatalf("%d overlap events, want 1: %v", len(ov), ov)
			}
			e := ov[0]
			if e.Task() != "T2" || e.Agent() != "b" || e.Str("tasks") != "[T1 T2]" || e.Str("agents") != "[a b]" ||
				e.Str("paths") != "[src/shared.go]" || e.Str("action") != "warn" || e.Str("held") != "" {
				t.Errorf("overlap %v: want T2 of b after T1 of a, src/shared.go, action warn", e)
			}
			out := w.out.String()
			if n := strings.Count(out, "WARNING: T1 (a) and T2 (b) both modify src/shared.go"); n != 1 {
				t.Errorf("%d WARNING lines of the overlap, want 1:\n%s", n, out)
			}
			if n := len(eventsNamed(evs, "task_completed")); n != 2 {
				t.Errorf("%d tasks completed, want 2", n)
			}
		})
	}
}

// TestNoOverlapSaysNothing: records naming files of their own make no
// overlap and no such WARNING.
func TestNoOverlapSaysNothing(t *testing.T) {
	w := CheckSpec(t, overlapNight(false, "serialize", []string{"src/other.go", "b.go"}))
	if ov := eventsNamed(w.eventsNow(), "overlap"); len(ov) != 0 {
		t.Errorf("overlap without a common file: %v", ov)
	}
	if strings.Contains(w.out.String(), "both modify") {
		t.Errorf("a WARNING of an overlap without a common file:\n%s", w.out.String())
	}
}

// TestOverlapSerializeHoldsTheLaterTask: with on_overlap = "serialize" b,
// whose record named src/shared.go second, is held (action serialize,
// held b): nothing is typed to it until T1 completes; then it goes on and
// completes T2.
func TestOverlapSerializeHoldsTheLaterTask(t *testing.T) {
	w := CheckSpec(t, overlapNight(false, "serialize", []string{"src/shared.go", "b.go"}))
	evs := w.eventsNow()
	ov := eventsNamed(evs, "overlap")
	if len(ov) != 1 || ov[0].Str("action") != "serialize" || ov[0].Str("held") != "b" || ov[0].Task() != "T2" {
		t.Fatalf("overlap %v: want one, T2 held (b), action serialize", ov)
	}
	heldAt := ov[0].Time()
	var t1Done, t2Done time.Time
	for _, e := range evs {
		if e.Name() == "task_completed" && e.Task() == "T1" {
			t1Done = e.Time()
		}
		if e.Name() == "task_completed" && e.Task() == "T2" {
			t2Done = e.Time()
		}
	}
	if t1Done.IsZero() || t2Done.IsZero() || !t2Done.After(t1Done) {
		t.Fatalf("T1 completed at %v, T2 at %v: want both, T2 after T1", t1Done, t2Done)
	}
	for _, e := range evs {
		if e.Agent() == "b" && e.Name() == "checkpoint_requested" && e.Time().After(heldAt) && e.Time().Before(t1Done) {
			t.Errorf("a checkpoint request typed to b at %v while T1 held it (%v until %v)", e.Time(), heldAt, t1Done)
		}
	}
	out := w.out.String()
	if !strings.Contains(out, "WARNING: T1 (a) and T2 (b) both modify src/shared.go; T2 is held until T1 ends") ||
		!strings.Contains(out, "b goes on: T1 ended") {
		t.Errorf("stdout has no WARNING of the hold or no line of its end:\n%s", out)
	}
}
