//go:build !e2e

package main

import (
	"strings"
	"testing"

	"github.com/wardenhq/warden/supervisor"
	"github.com/wardenhq/warden/supervisor/queue"
)

// The STOPPED line counts every task — complete, failed, open, and among
// the open ones those that wait for their blocked_by tasks or that their
// agent reported blocked —, and its numbers add up to the tasks of the
// run (issue 31: waiting tasks were counted nowhere).
func TestStoppedLineCountsEveryTask(t *testing.T) {
	res := supervisor.Result{Stopped: true, Tasks: []queue.Status{
		{ID: "T1", State: queue.Complete},
		{ID: "T2", State: queue.Failed},
		{ID: "T3", State: queue.Pending, Attempt: 1},
		{ID: "T4", State: queue.Blocked, BlockedBy: []string{"T3"}},
		{ID: "T5", State: queue.Blocked, BlockedBy: []string{"T3"}},
		{ID: "T6", State: queue.Pending, Summary: "blocked", Blockers: []string{"the API key"}},
	}}
	line := carryOnLine(res, "R1", "team.toml")
	want := "STOPPED: run R1 with 6 tasks: 1 complete, 1 failed, 4 open (2 waiting for their blocked_by tasks, 1 reported blocked); " +
		"`warden run team.toml` carries it on from their checkpoints (`--fresh` starts over)"
	if line != want {
		t.Errorf("got  %s\nwant %s", line, want)
	}

	res.Tasks = []queue.Status{{ID: "T1", State: queue.Complete}, {ID: "T2", State: queue.Running},
		{ID: "T3", State: queue.Blocked, BlockedBy: []string{"T2"}}}
	if line := carryOnLine(res, "R2", "t.toml"); !strings.HasPrefix(line, "STOPPED: run R2 with 3 tasks: 1 complete, 2 open (1 waiting for its blocked_by tasks); ") {
		t.Errorf("got %s", line)
	}

	// Nothing left that can go on (the waiting task's blocked_by failed):
	// the run finished, no STOPPED line.
	res.Tasks = []queue.Status{{ID: "T1", State: queue.Failed}, {ID: "T2", State: queue.Blocked, BlockedBy: []string{"T1"}}}
	if line := carryOnLine(res, "R3", "t.toml"); line != "" {
		t.Errorf("a finished run got %q", line)
	}
}
