//go:build e2e

package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/testrig/proctest"
)

// Two real agents, an author and a reviewer (review_by): the reviewer
// finds something at round 1 and approves round 2. The events come in
// order — review_requested 1, review_done 1 with a finding, the author
// back on the task, review_requested 2, review_done 2 approved, then
// task_completed once — and the author's second session is told the
// finding.
func TestReviewFindingsThenApproved(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+"review_by = \"r\"\n"+`
[[task]]
id = "T1"
title = "the work"
agent = "a"
prompt = "Work."
`, fakeAgent{name: "a", mode: "worker:steps=2"}, fakeAgent{name: "r", mode: "reviewer:findings=1"})
	res, out, _ := runTeam(t, cfg, 60*time.Second)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode(), out)
	}
	evs := eventsOf(t, cfg)
	var story []string
	for _, e := range evs {
		switch e["event"] {
		case event.ReviewRequested, event.ReviewDone, event.TaskCompleted, event.TaskDispatched:
			s := e["event"].(string) + " " + strings.TrimSpace(strings.Join([]string{val(e["agent"]), val(e["round"]),
				val(e["findings"]), val(e["approved"])}, " "))
			story = append(story, s)
		}
	}
	want := []string{
		"task_dispatched a",
		"review_requested r 1",
		"review_done r 1 1 false",
		"task_dispatched a",
		"review_requested r 2",
		"review_done r 2 0 true",
		"task_completed a",
	}
	if strings.Join(story, "\n") != strings.Join(want, "\n") {
		t.Fatalf("events:\n%s\nwant:\n%s\n%s", strings.Join(story, "\n"), strings.Join(want, "\n"), out)
	}
	logs := func(agent string) string {
		b, _ := os.ReadFile(filepath.Join(cfg.StateDir, "logs", agent+".log"))
		return string(b)
	}
	if l := logs("r"); !strings.Contains(l, "REVIEW-SEEN: REVIEW REQUEST T1.review1: review the work of agent a on task T1 (the work), round 1 of at most 2") ||
		!strings.Contains(l, "REVIEW-SEEN: The change: the team works in one shared directory") {
		t.Errorf("the reviewer was not asked round 1 with the files of shared mode:\n%s", l)
	}
	if l := logs("a"); !strings.Contains(l, "fix finding of round 1") {
		t.Errorf("the author's second session was not told the finding:\n%s", l)
	}
	for _, line := range []string{"IN REVIEW: T1 (the work) round 1 of at most 2, by r",
		"REVIEW FINDINGS: T1 round 1 by r: 1 finding(s); back to a", "REVIEW APPROVED: T1 round 2 by r",
		"TASK COMPLETE: T1 (the work)"} {
		if !strings.Contains(out, line) {
			t.Errorf("stdout has no %q:\n%s", line, out)
		}
	}
}

// val is an event field as text ("" when absent).
func val(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// In worktree mode the reviewer is typed the diff of the task's branch
// since it left main (its work committed before the round), and on
// approval the task completes once.
func TestReviewInWorktreeModeGetsTheDiff(t *testing.T) {
	defer proctest.AssertNone(t)
	repo, _ := gitRepo(t)
	cfg := writeTeam(t, fastTimers+"workspace = \"worktree\"\nreview_by = \"r\"\n"+`
[[task]]
id = "T1"
agent = "a"
prompt = "Work."
`, fakeAgent{name: "a", mode: "worker:steps=2:write=work.txt", dir: repo},
		fakeAgent{name: "r", mode: "reviewer:findings=0", dir: repo})
	cfg.StateDir = filepath.Join(repo, ".warden")
	cfg.SignalFile = filepath.Join(cfg.StateDir, "checkpoint-needed")
	res, out, _ := runTeam(t, cfg, 60*time.Second)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode(), out)
	}
	evs := eventsOf(t, cfg)
	if n := countEvents(evs, event.TaskCompleted, ""); n != 1 {
		t.Errorf("%d task_completed, want 1", n)
	}
	if n := countEvents(evs, event.ReviewDone, "r"); n != 1 {
		t.Errorf("%d review_done, want 1", n)
	}
	b, _ := os.ReadFile(filepath.Join(cfg.StateDir, "logs", "r.log"))
	l := string(b)
	if !strings.Contains(l, "REVIEW-SEEN: The change, `git diff main...warden/"+cfg.Name+"/T1`") || !strings.Contains(l, "+T1 step 2") {
		t.Errorf("the reviewer was not typed the task's diff:\n%s", l)
	}
}
