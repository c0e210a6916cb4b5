//go:build !e2e

package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// The report names the branches waiting for review (worktree mode), each
// with the last commit warden made of its work, as the handoff's Review
// section does: a person reads in the morning what to look at and merge. A
// task fast-forwarded into its base (merge = "ff") waits for nobody, and an
// open task's branch is not yet anyone's to review.
func TestTheReportNamesTheBranchesWaitingForReview(t *testing.T) {
	c := newCrafted(t, state.EndedFinished, false, 100)
	snap := state.Snapshot{Team: "night", RunID: "R1", RunStartedAt: base, Ended: state.EndedFinished, UpdatedAt: at(100),
		Tasks: []queue.Status{
			{ID: "T1", State: queue.Complete, Owner: "a1", Progress: 100, Branch: "warden/night/T1", Base: "main"},
			{ID: "T2", State: queue.Complete, Owner: "a2", Progress: 100, Branch: "warden/night/T2", Base: "main"},
			{ID: "T3", State: queue.Running, Owner: "a1", Progress: 40, Branch: "warden/night/T3", Base: "main"},
		}}
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.root, "state.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := c.event(0, "run_started", "", "", "run_id", "R1", "how", "new").
		event(10, "work_committed", "a1", "T1", "branch", "warden/night/T1", "commit", "1111111111111111111111111111111111111111").
		event(20, "work_committed", "a1", "T1", "branch", "warden/night/T1", "commit", "abcdef0123456789abcdef0123456789abcdef01").
		event(30, "work_committed", "a2", "T2", "branch", "warden/night/T2", "commit", "2222222222222222222222222222222222222222").
		event(31, "work_merged", "a2", "T2", "branch", "warden/night/T2", "base", "main").
		event(40, "work_committed", "a1", "T3", "branch", "warden/night/T3", "commit", "3333333333333333333333333333333333333333").
		build(100)
	if len(r.Review) != 1 || r.Review[0] != (Review{Task: "T1", Branch: "warden/night/T1", Base: "main",
		Commit: "abcdef0123456789abcdef0123456789abcdef01", Agent: "a1"}) {
		t.Fatalf("review: %+v", r.Review)
	}
	text := unwrapped(Text(r))
	for _, want := range []string{"## Waiting for your review: 1 task",
		"- T1: branch warden/night/T1, last commit abcdef012345, to merge into main"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "warden/night/T2") || strings.Contains(text, "warden/night/T3") {
		t.Errorf("a merged or an open task is said to wait for review:\n%s", text)
	}

	// A shared workspace: the complete task's work is in the agent's
	// directory, and the report says so.
	shared := newCrafted(t, state.EndedFinished, false, 100).event(0, "run_started", "", "", "run_id", "R1", "how", "new").build(100)
	if len(shared.Review) != 1 || shared.Review[0].Task != "T1" || shared.Review[0].Branch != "" {
		t.Fatalf("shared review: %+v", shared.Review)
	}
	if text := Text(shared); !strings.Contains(text, "- T1: in the agent's directory (a shared workspace)") {
		t.Errorf("the shared workspace's complete task is not named:\n%s", text)
	}
}

// review_done events give a task its review rounds, and the findings its
// last round left open (escaped in report.md: an agent's words).
func TestReviewRoundsInTheReport(t *testing.T) {
	r := newCrafted(t, "finished", false, 500).
		event(0, "run_started", "", "", "run_id", "R1", "how", "new").
		event(10, "review_done", "a2", "T1", "round", 1, "findings", 1, "approved", false).
		event(20, "review_done", "a2", "T1", "round", 2, "findings", 1, "approved", false, "open", []string{"fix the `x` | y"}).
		event(21, "task_completed", "a1", "T1").
		event(30, "team_done", "", "", "exit_code", 0).
		build(1000)
	if got := r.Tasks[0]; got.ReviewRounds != 2 || len(got.OpenFindings) != 1 {
		t.Fatalf("T1 %+v: want 2 review rounds, 1 open finding", got)
	}
	md := Markdown(r)
	if !strings.Contains(md, "2 review rounds") || !strings.Contains(md, "open findings: fix the") || strings.Contains(md, "`x`") {
		t.Errorf("report.md:\n%s", md)
	}
}
