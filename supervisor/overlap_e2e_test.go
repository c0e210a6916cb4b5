//go:build e2e

package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/testrig/proctest"
	"github.com/wardenhq/warden/testrig/teamtest"
)

const overlapTasks = `
[[task]]
id = "T1"
agent = "a"
prompt = "Work."
[[task]]
id = "T2"
agent = "b"
prompt = "Work."
`

// Two real agents in one directory whose records name the same file (the
// worker names step1.go at its first answer, step2.go at its second …):
// warden says so once per pair and set of files — the overlap event and a
// WARNING line naming both tasks, both agents and the file — and both
// tasks complete (on_overlap = "warn").
func TestOverlapIsSaidOnceAndBothGoOn(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+overlapTasks,
		fakeAgent{name: "a", mode: "worker:steps=3"}, fakeAgent{name: "b", mode: "worker:steps=3"})
	res, out, _ := runTeam(t, cfg, 60*time.Second)
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode(), out)
	}
	evs := eventsOf(t, cfg)
	var said []map[string]any
	for _, e := range evs {
		if e["event"] == event.Overlap {
			said = append(said, e)
		}
	}
	if len(said) == 0 {
		t.Fatalf("no overlap event: %v", evs)
	}
	seen := map[string]bool{}
	for _, e := range said {
		key := strings.Join(strs(e["tasks"]), ",") + "|" + strings.Join(strs(e["paths"]), ",")
		if seen[key] {
			t.Errorf("said twice: %v", e)
		}
		seen[key] = true
		if tasks := strs(e["tasks"]); len(tasks) != 2 || tasks[0] == tasks[1] || e["action"] != "warn" {
			t.Errorf("overlap %v", e)
		}
	}
	if !strings.Contains(out, "WARNING:") || !strings.Contains(out, "step1.go") {
		t.Errorf("no WARNING line naming the file:\n%s", out)
	}
	if n := countEvents(evs, event.TaskCompleted, ""); n != 2 {
		t.Errorf("%d tasks completed, want 2", n)
	}
}

// With on_overlap = "serialize" the later task's agent is held (parked:
// nothing typed) until the first task completes; then it goes on and
// completes too.
func TestOverlapSerializeHoldsTheLaterUntilTheFirstEnds(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := writeTeam(t, fastTimers+"on_overlap = \"serialize\"\n"+overlapTasks,
		fakeAgent{name: "a", mode: "worker:steps=3"}, fakeAgent{name: "b", mode: "worker:steps=3"})
	// While held, state.json names the overlap and the held agent, and
	// STATUS.md says it: sampled beside the run.
	sampled := teamtest.WatchSnapshots(t, cfg, func(snap *state.Snapshot) string {
		md, _ := os.ReadFile(filepath.Join(cfg.StateDir, "STATUS.md"))
		if len(snap.Overlaps) == 0 || !strings.Contains(string(md), snap.Overlaps[0].Line()) {
			return ""
		}
		for _, a := range snap.Agents {
			if a.OverlapHeld != "" {
				return a.Name + " held for " + a.OverlapHeld + "; " + snap.Overlaps[0].Line()
			}
		}
		return ""
	})
	res, out, _ := runTeam(t, cfg, 60*time.Second)
	if seen := sampled(); seen == "" {
		t.Error("state.json never named the overlap with its held agent (and STATUS.md its line)")
	} else {
		t.Log(seen)
	}
	if res.ExitCode() != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode(), out)
	}
	evs := eventsOf(t, cfg)
	var held map[string]any
	for _, e := range evs {
		if e["event"] == event.Overlap && e["action"] == "serialize" {
			held = e
			break
		}
	}
	if held == nil {
		t.Fatalf("no overlap held a task: %v", evs)
	}
	tasks := strs(held["tasks"])
	if len(tasks) != 2 {
		t.Fatalf("overlap %v", held)
	}
	first, later := tasks[0], tasks[1]
	// The later task completes after the first.
	at := map[string]int{}
	for i, e := range evs {
		if e["event"] == event.TaskCompleted {
			at[str(e["task"])] = i
		}
	}
	if _, ok := at[first]; !ok || at[later] < at[first] {
		t.Errorf("held %s completed before %s (or one never did): %v", later, first, at)
	}
	if n := countEvents(evs, event.TaskCompleted, ""); n != 2 {
		t.Errorf("%d tasks completed, want 2", n)
	}
}

func strs(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}
