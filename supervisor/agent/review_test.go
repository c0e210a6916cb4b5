//go:build !e2e

package agent

import (
	"slices"
	"testing"

	"github.com/wardenhq/warden/supervisor/config"
)

// A review answer's Remaining items are its findings; the words that say
// there is nothing are none.
func TestFindings(t *testing.T) {
	for _, c := range []struct {
		remaining, want []string
	}{
		{nil, nil},
		{[]string{"nothing"}, nil},
		{[]string{"Nothing.", " none ", "N/A", "approved", "no findings"}, nil},
		{[]string{"the summary names trail 12 twice", "nothing"}, []string{"the summary names trail 12 twice"}},
		{[]string{"  fix the test  "}, []string{"fix the test"}},
	} {
		if got := Findings(c.remaining); !slices.Equal(got, c.want) {
			t.Errorf("Findings(%q) = %q, want %q", c.remaining, got, c.want)
		}
	}
}

// A review round's synthetic task is known by its id; the reviewed task is
// reviewed only with a reviewer and the rounds wired.
func TestReviewedAndIsReview(t *testing.T) {
	if !isReview(&config.Task{ID: "T1.review2"}) || isReview(&config.Task{ID: "T1"}) || isReview(nil) {
		t.Error("isReview")
	}
	d := &Deps{}
	task := &config.Task{ID: "T1", ReviewBy: "r"}
	if d.reviewed(task) {
		t.Error("reviewed without the rounds wired")
	}
	d.Reviews = NewReviews()
	if !d.reviewed(task) || d.reviewed(&config.Task{ID: "T2"}) {
		t.Error("reviewed")
	}
	if d.Reviews.goneWhy("r") != "" {
		t.Error("a reviewer gone before it ended")
	}
}
