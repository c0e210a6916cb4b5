//go:build !e2e

package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// reviewNight is issue 37's review rounds: a (T1's author) answers in
// 0.5 s and completes at its third answer; r reviews T1 (review_by), its
// rounds up to findingsUntil finding something, then approving, at its
// first answer. crashAfter, when set, crashes every session of r that long
// after it started.
func reviewNight(worktree bool, findingsUntil int, crashAfter time.Duration) Spec {
	return Spec{Seed: 38, Worktree: worktree, Rehydrate: true, Night: 3 * time.Minute, ReviewBy: "r",
		Timers: Timers{Interval: 2 * time.Second, Timeout: 30 * time.Second, Shutdown: 3 * time.Second,
			StaleWarning: 10 * time.Minute, StaleFailure: 30 * time.Minute},
		Agents: []AgentSpec{
			{Name: "a", Restart: "on-failure", MaxRestarts: 5, Persona: Persona{AnswerMin: 500 * time.Millisecond,
				AnswerMax: 500 * time.Millisecond, CompleteAfter: 3}},
			{Name: "r", Restart: "on-failure", MaxRestarts: 5, Persona: Persona{AnswerMin: time.Second,
				AnswerMax: time.Second, CompleteAfter: 1, FindingsUntil: findingsUntil, CrashAfter: crashAfter}},
		},
		Tasks: []TaskSpec{{ID: "T1", Agent: "a", Verify: "pass"}},
	}
}

// reviewStory is the night's review events and task_completed, in order,
// as "name round findings approved".
func reviewStory(evs []Event) []string {
	var out []string
	for _, e := range evs {
		switch e.Name() {
		case "review_requested":
			out = append(out, fmt.Sprintf("requested %s by %s", e.Str("round"), e.Agent()))
		case "review_done":
			out = append(out, fmt.Sprintf("done %s findings %s approved %s", e.Str("round"), e.Str("findings"), e.Str("approved")))
		case "task_completed":
			out = append(out, "completed "+e.Task()+" by "+e.Agent())
		}
	}
	return out
}

// TestReviewRounds: approved at round 1; findings at round 1, approved at
// 2; findings at every round, so the task completes after
// max_review_rounds (2) with its finding named. The task completes once,
// after its last round, and the sim's invariants hold.
func TestReviewRounds(t *testing.T) {
	for _, c := range []struct {
		name     string
		findings int
		want     []string
		open     bool
	}{
		{"approved", 0, []string{"requested 1 by r", "done 1 findings 0 approved true", "completed T1 by a"}, false},
		{"findings then approved", 1, []string{"requested 1 by r", "done 1 findings 1 approved false",
			"requested 2 by r", "done 2 findings 0 approved true", "completed T1 by a"}, false},
		{"findings every round", 5, []string{"requested 1 by r", "done 1 findings 1 approved false",
			"requested 2 by r", "done 2 findings 1 approved false", "completed T1 by a"}, true},
	} {
		for _, worktree := range []bool{false, true} {
			t.Run(c.name+map[bool]string{true: "/worktree", false: "/shared"}[worktree], func(t *testing.T) {
				w := CheckSpec(t, reviewNight(worktree, c.findings, 0))
				evs := w.eventsNow()
				if got := reviewStory(evs); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
					t.Fatalf("review story:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
				}
				done := eventsNamed(evs, "task_completed")[0]
				out := w.out.String()
				warned := strings.Contains(out, "WARNING: T1 completes after 2 review rounds with 1 open finding(s) from r: finding of round 2")
				if c.open != warned || c.open != strings.Contains(done.Str("open_findings"), "finding of round 2") {
					t.Errorf("open findings named: WARNING %v, task_completed %v; want %v\n%s", warned, done, c.open, out)
				}
				if c.findings == 1 && !strings.Contains(out, "REVIEW FINDINGS: T1 round 1 by r: 1 finding(s); back to a") {
					t.Errorf("no line of the findings going back:\n%s", out)
				}
				// What was typed: each round's request to r, once; the
				// findings to a's next session.
				w.mu.Lock()
				heard := strings.Join(w.reviewHeard, "\n")
				w.mu.Unlock()
				rounds := strings.Count(strings.Join(c.want, " "), "requested")
				if n := strings.Count(heard, "r: REVIEW REQUEST T1.review"); n != rounds {
					t.Errorf("%d review requests typed to r, want %d:\n%s", n, rounds, heard)
				}
				if c.findings > 0 && (!strings.Contains(heard, "a: Your work on this task was reviewed by r (review round 1 of at most 2)") ||
					!strings.Contains(heard, "a: - finding of round 1")) {
					t.Errorf("the findings were not typed to a's next session:\n%s", heard)
				}
			})
		}
	}
}

// TestReviewAskedAgainAfterACrash: every session of the reviewer crashes
// before it answers, until its restarts are spent: the round is asked
// again by each new session but review_requested is said once, and when
// the reviewer fails for good the task completes unreviewed, said so.
func TestReviewAskedAgainAfterACrash(t *testing.T) {
	spec := reviewNight(false, 0, 500*time.Millisecond)
	spec.Agents[1].MaxRestarts = 2
	w := CheckSpec(t, spec)
	evs := w.eventsNow()
	if n := len(eventsNamed(evs, "review_requested")); n != 1 {
		t.Errorf("%d review_requested, want 1", n)
	}
	if n := len(eventsNamed(evs, "review_done")); n != 0 {
		t.Errorf("%d review_done from a reviewer that never answered", n)
	}
	done := eventsNamed(evs, "task_completed")
	if len(done) != 1 || done[0].Str("unreviewed") == "" {
		t.Fatalf("task_completed %v: want one, unreviewed", done)
	}
	if !strings.Contains(w.out.String(), "WARNING: T1 completes unreviewed: its reviewer r ended") {
		t.Errorf("no WARNING of the unreviewed task:\n%s", w.out.String())
	}
	if ts := w.result.Tasks; len(ts) != 1 || !ts[0].Unreviewed || ts[0].State != "complete" {
		t.Errorf("the result does not say T1 completed unreviewed: %+v", ts)
	}
}

// TestReviewCarriedOverATeamCheckpoint: a team checkpoint stops the
// reviewer's session mid-round; with rehydration the task is still in
// review, the next generation's session of the reviewer is asked the
// round again (review_requested said once), and the task completes once.
func TestReviewCarriedOverATeamCheckpoint(t *testing.T) {
	spec := reviewNight(false, 0, 0)
	spec.Agents[1].Persona.AnswerMin, spec.Agents[1].Persona.AnswerMax = 40*time.Second, 40*time.Second // past checkpoint_timeout: the last call gets no answer
	spec.Ops = []Op{{At: 11 * time.Second, Kind: OpCheckpoint}}
	w := CheckSpec(t, spec)
	evs := w.eventsNow()
	if n := countEvents(evs, "team_rehydrated"); n != 1 {
		t.Fatalf("%d team_rehydrated, want 1", n)
	}
	var began, requested time.Time
	for _, e := range evs {
		switch {
		case e.Name() == "team_checkpoint_started" && began.IsZero():
			began = e.Time()
		case e.Name() == "review_requested" && requested.IsZero():
			requested = e.Time()
		}
	}
	if requested.IsZero() || !requested.Before(began) {
		t.Fatalf("review requested at %v, the team checkpoint began at %v: want the round under way", requested, began)
	}
	if got := reviewStory(evs); strings.Join(got, "\n") != "requested 1 by r\ndone 1 findings 0 approved true\ncompleted T1 by a" {
		t.Errorf("review story:\n%s", strings.Join(got, "\n"))
	}
	w.mu.Lock()
	heard := strings.Join(w.reviewHeard, "\n")
	w.mu.Unlock()
	if n := strings.Count(heard, "r: REVIEW REQUEST T1.review1"); n != 2 {
		t.Errorf("the round was typed %d times, want 2 (before and after the team checkpoint):\n%s", n, heard)
	}
}

// TestReviewCarriedOnAfterWardenDied: warden is killed (-9) while a round
// is in flight and started again: the run is carried on with the task
// still in review at that round — asked again, review_requested said once
// — and it completes once. After findings at round 1, a warden that died
// while the author fixed them goes on at round 2.
func TestReviewCarriedOnAfterWardenDied(t *testing.T) {
	for _, c := range []struct {
		name     string
		findings int
		at       time.Duration
		want     string
		twice    string // typed before warden died and again after
	}{
		{"in review", 0, 11 * time.Second, "requested 1 by r\ndone 1 findings 0 approved true\ncompleted T1 by a",
			"r: REVIEW REQUEST T1.review1"},
		{"findings back with the author", 1, 50 * time.Second,
			"requested 1 by r\ndone 1 findings 1 approved false\nrequested 2 by r\ndone 2 findings 0 approved true\ncompleted T1 by a",
			"a: Your work on this task was reviewed by r (review round 1 of at most 2)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := reviewNight(false, c.findings, 0)
			spec.Agents[1].Persona.AnswerMin, spec.Agents[1].Persona.AnswerMax = 40*time.Second, 40*time.Second
			spec.Ops = []Op{{At: c.at, Kind: OpKill9}, {At: c.at + 5*time.Second, Kind: OpRun}}
			spec.Night = 5 * time.Minute
			w := CheckSpec(t, spec)
			evs := w.eventsNow()
			carried := false
			for _, e := range evs {
				carried = carried || (e.Name() == "run_started" && e.Str("how") == "carried_on")
			}
			if !carried {
				t.Fatalf("the run was not carried on")
			}
			if got := strings.Join(reviewStory(evs), "\n"); got != c.want {
				t.Errorf("review story:\n%s\nwant:\n%s\n%s", got, c.want, w.out.String())
			}
			if !strings.Contains(w.out.String(), "TASK COMPLETE: T1 verify: passed") {
				t.Errorf("the verify's result was not carried on:\n%s", w.out.String())
			}
			w.mu.Lock()
			heard := strings.Join(w.reviewHeard, "\n")
			w.mu.Unlock()
			if n := strings.Count(heard, c.twice); n != 2 {
				t.Errorf("%q typed %d times, want 2 (before warden died and after):\n%s", c.twice, n, heard)
			}
		})
	}
}
