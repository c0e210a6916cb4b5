//go:build !e2e

package queue

import (
	"slices"
	"testing"

	"github.com/wardenhq/warden/supervisor/config"
)

// A task with a reviewer: into review after its author's complete, taken
// once by its reviewer (asked again after a release, but said once a
// round), answered once; findings send it back to its author, the last
// round's findings end the rounds; its reviewer never takes it.
func TestReviewRounds(t *testing.T) {
	q := New([]config.Task{{ID: "T1", Title: "one", ReviewBy: "r"}})
	if got := q.Take("r"); got != nil {
		t.Fatalf("the reviewer took its own reviewed task %s", got.ID)
	}
	if got := q.Take("a"); got == nil || got.ID != "T1" {
		t.Fatalf("the author took %v", got)
	}
	if round := q.ToReview("T1", "a"); round != 1 || q.StateOf("T1") != Reviewing || !q.Open() {
		t.Fatalf("round %d, state %s, open %v", round, q.StateOf("T1"), q.Open())
	}
	if rv := q.TakeReview("a"); rv != nil {
		t.Fatalf("another agent than the reviewer took the review: %+v", rv)
	}
	rv := q.TakeReview("r")
	if rv == nil || rv.Task.ID != "T1" || rv.Round != 1 || rv.Author != "a" || !rv.First {
		t.Fatalf("review %+v", rv)
	}
	if again := q.TakeReview("r"); again != nil {
		t.Fatalf("a round taken twice: %+v", again)
	}
	if n := q.NextAttempt(config.ReviewID("T1", 1)); n != 1 || q.Attempts("T1.review1") != 1 {
		t.Errorf("review sessions %d", n)
	}
	q.ReleaseReview("T1") // the reviewer crashed
	if rv = q.TakeReview("r"); rv == nil || rv.First {
		t.Fatalf("asked again: %+v (want taken, not first)", rv)
	}
	if _, ok := q.ReviewAnswered("T1", 2, []string{"x"}, 2); ok {
		t.Fatal("an answer for a round not under way was recorded")
	}
	out, ok := q.ReviewAnswered("T1", 1, []string{"fix x"}, 2)
	if !ok || out != ReviewBack || q.StateOf("T1") != Pending {
		t.Fatalf("round 1: %v %v, state %s", out, ok, q.StateOf("T1"))
	}
	if _, ok := q.ReviewAnswered("T1", 1, nil, 2); ok {
		t.Fatal("round 1 answered twice")
	}
	if round, f := q.ReviewFindings("T1"); round != 1 || !slices.Equal(f, []string{"fix x"}) {
		t.Errorf("findings %d %v", round, f)
	}
	if got := q.Take("a"); got == nil || got.ID != "T1" {
		t.Fatalf("back to the author: %v", got)
	}
	if round := q.ToReview("T1", "a"); round != 2 {
		t.Fatalf("round %d", round)
	}
	if _, f := q.ReviewFindings("T1"); f != nil {
		t.Errorf("findings said while in review again: %v", f)
	}
	rv = q.TakeReview("r")
	if out, ok := q.ReviewAnswered("T1", rv.Round, []string{"still x"}, 2); !ok || out != ReviewExhausted {
		t.Fatalf("round 2: %v %v", out, ok)
	}
	q.Set("T1", Complete, "")
	if round, f := q.ReviewFindings("T1"); round != 2 || !slices.Equal(f, []string{"still x"}) {
		t.Errorf("open findings at completion: %d %v", round, f)
	}
	s := q.Snapshot()[0]
	if s.Reviewer != "r" || s.ReviewRound != 2 || !slices.Equal(s.Findings, []string{"still x"}) {
		t.Errorf("snapshot %+v", s)
	}
}

// No findings: approved.
func TestReviewApproved(t *testing.T) {
	q := New([]config.Task{{ID: "T1", ReviewBy: "r"}})
	q.Take("a")
	q.ToReview("T1", "a")
	rv := q.TakeReview("r")
	if out, ok := q.ReviewAnswered("T1", rv.Round, nil, 2); !ok || out != ReviewApproved {
		t.Fatalf("%v %v", out, ok)
	}
	if ids := q.ReviewsOf("r"); len(ids) != 1 {
		t.Errorf("in review until the caller completes it: %v", ids)
	}
}

// A carried-on run restores a task's review rounds: in review at its
// round (asked again, not said again), or back with its author with the
// last round's findings, the next round numbered on from there.
func TestRestoreReview(t *testing.T) {
	q := New([]config.Task{{ID: "T1", ReviewBy: "r"}, {ID: "T2", ReviewBy: "r"}, {ID: "T3"}})
	q.RestoreReview("T1", 2, "a", true, nil)
	q.RestoreReview("T2", 1, "a", false, []string{"fix x"})
	q.RestoreReview("T3", 1, "a", true, nil) // no reviewer: left alone
	if q.StateOf("T1") != Reviewing || q.StateOf("T2") != Pending || q.StateOf("T3") != Pending {
		t.Fatalf("states %s %s %s", q.StateOf("T1"), q.StateOf("T2"), q.StateOf("T3"))
	}
	rv := q.TakeReview("r")
	if rv == nil || rv.Task.ID != "T1" || rv.Round != 2 || rv.First || rv.Author != "a" {
		t.Fatalf("restored review %+v: want T1 round 2, asked again", rv)
	}
	if out, ok := q.ReviewAnswered("T1", 2, nil, 2); !ok || out != ReviewApproved {
		t.Errorf("round 2 answered: %v %v", out, ok)
	}
	if round, f := q.ReviewFindings("T2"); round != 1 || !slices.Equal(f, []string{"fix x"}) {
		t.Errorf("T2 findings %d %v", round, f)
	}
	q.Take("a")
	if round := q.ToReview("T2", "a"); round != 2 {
		t.Errorf("T2's next round %d, want 2", round)
	}
}
