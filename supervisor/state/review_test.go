//go:build !e2e

package state

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/queue"
)

// STATUS.md and warden status say where each task with review rounds
// stands: in review, findings back with its author, approved, complete
// with open findings; a finding's text is escaped.
func TestReviewShownInStatus(t *testing.T) {
	s := Snapshot{Team: "t", UpdatedAt: time.Date(2026, 12, 7, 13, 0, 0, 0, time.UTC), Tasks: []queue.Status{
		{ID: "T1", State: queue.Reviewing, Reviewer: "r", ReviewRound: 1, Owner: "a"},
		{ID: "T2", State: queue.Pending, Reviewer: "r", ReviewRound: 1, Owner: "a", Findings: []string{"fix | the <b>pipe</b>"}},
		{ID: "T3", State: queue.Complete, Reviewer: "r", ReviewRound: 2, Owner: "a"},
		{ID: "T4", State: queue.Complete, Reviewer: "r", ReviewRound: 2, Owner: "a", Findings: []string{"still x"}},
		{ID: "T5", State: queue.Complete, Reviewer: "r"}, // never reviewed: no line
		{ID: "T6", State: queue.Complete, Reviewer: "r", ReviewRound: 1, Unreviewed: true},
	}}
	md := statusMarkdown(s)
	for _, want := range []string{"1 reviewing", "## Review", "- T1: round 1 by r, in review",
		"- T2: round 1 by r, findings back with a: fix \\| the", "- T3: round 2 by r, approved",
		"- T4: round 2 by r, complete with open findings: still x", "- T6: complete unreviewed (its reviewer r ended)"} {
		if !strings.Contains(md, want) {
			t.Errorf("STATUS.md has no %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "<b>") || strings.Contains(md, "T5: round") {
		t.Errorf("STATUS.md:\n%s", md)
	}
	var b bytes.Buffer
	RenderDashboard(&b, s, s.UpdatedAt)
	for _, want := range []string{"in review 1", "review T1: round 1 by r, in review", "review T4: round 2 by r, complete with open findings: still x"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("warden status has no %q:\n%s", want, b.String())
		}
	}
}
