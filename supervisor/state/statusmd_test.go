//go:build !e2e

package state

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/queue"
)

// STATUS.md and the dashboard: the team's progress, each task's last
// completed item, ages beside times, blocked tasks under their heading —
// and nothing a task title or an agent's text holds can forge a row or
// reach the terminal as an escape sequence.
func TestStatusAndDashboard(t *testing.T) {
	now := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	s := Snapshot{Team: "night", UpdatedAt: now, Running: true,
		Agents: []AgentStatus{{Name: "w1", State: Running, Task: "T1", LastCheckpoint: now.Add(-2 * time.Minute)}},
		Tasks: []queue.Status{
			{ID: "T1", Title: "evil | forged |\n| row", State: queue.Running, Owner: "w1", Progress: 40, Summary: "implementing", LastDone: "parsed\x1b]52;c;AAAA\x07 it"},
			{ID: "T2", Title: "two", State: queue.Running, Owner: "w2", Progress: 20, Summary: "blocked", Blockers: []string{"needs the API key"}},
			{ID: "T3", Title: "three", State: queue.Complete, Progress: 100},
		}}
	md := statusMarkdown(s)
	for _, want := range []string{"Team progress: 53%.", "(2 min ago)", `| T1 | evil \| forged \| \| row |`, `| parsed \]52;c;AAAA  it |`,
		"## Blocked", "- T2 (w2): needs the API key"} {
		if !strings.Contains(md, want) {
			t.Errorf("STATUS.md lacks %q:\n%s", want, md)
		}
	}
	if strings.ContainsAny(md, "\x1b\x07") {
		t.Error("STATUS.md holds control characters")
	}
	var b bytes.Buffer
	RenderDashboard(&b, s, now.Add(time.Hour))
	out := b.String()
	for _, want := range []string{"progress 53%", "last checkpoint 1h02 ago", "last done: parsed", "blocked on: needs the API key"} {
		if !strings.Contains(out, want) {
			t.Errorf("dashboard lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Error("the dashboard prints control characters")
	}
}

// The header counts a task its agent says is blocked as blocked and one
// that waits for its blocked_by as waiting (it said "blocked 0" while a
// task was blocked); the Blocked list names task, agent and blockers, a
// held task's reason among them; STATUS.md says the same.
func TestBlockedListAndHeader(t *testing.T) {
	now := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	s := Snapshot{Team: "night", UpdatedAt: now, Running: true,
		Agents: []AgentStatus{{Name: "w1", State: Running, Task: "T1"}, {Name: "w2", State: Idle}},
		Tasks: []queue.Status{
			{ID: "T1", State: queue.Running, Owner: "w1", Progress: 30, Summary: "blocked", Blockers: []string{"needs the API key", "ask ops"}},
			{ID: "T2", State: queue.Blocked, BlockedBy: []string{"T1"}},
			{ID: "T3", State: queue.Blocked, Held: true, Owner: "w2", Reason: "the branches it starts from conflict (a.go)"},
			{ID: "T4", State: queue.Pending},
		}}
	var b bytes.Buffer
	RenderDashboard(&b, s, now)
	out := b.String()
	for _, want := range []string{
		"tasks done 0/4, available 1, blocked 2, waiting 1, pending verification 0\n",
		"   task  T1           blocked    30%  w1 blocked on: needs the API key; ask ops\n",
		"   task  T2           waiting     0%  - waits for: T1\n",
		"   task  T3           blocked     0%  w2 blocked on: the branches it starts from conflict (a.go)\n",
		"   Blocked:\n   - T1 (w1): needs the API key; ask ops\n   - T3 (w2): the branches it starts from conflict (a.go)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dashboard lacks %q:\n%s", want, out)
		}
	}
	md := statusMarkdown(s)
	for _, want := range []string{
		"Tasks: 0 of 4 done, 1 pending, 2 blocked, 1 waiting.",
		"| T1 | - | blocked | w1 | 30% |", "| T2 | - | waiting | - | 0% |", "| T3 | - | blocked | w2 | 0% |",
		"## Blocked\n\n- T1 (w1): needs the API key; ask ops\n- T3 (w2): the branches it starts from conflict (a.go)\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("STATUS.md lacks %q:\n%s", want, md)
		}
	}
}

// Time worked beside the estimate, and the seeds' phase, current step,
// subtasks and errors, in STATUS.md and the dashboard.
func TestSeedFieldsAndTimeWorked(t *testing.T) {
	now := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	s := Snapshot{Team: "night", UpdatedAt: now,
		Tasks: []queue.Status{
			{ID: "T1", Title: "parse", State: queue.Running, Owner: "w1", Progress: 65, Summary: "implementing",
				Phase: "build", CurrentStep: "the lexer", SubtasksDone: 19, SubtasksTotal: 29, Errors: 2,
				WorkedSeconds: 70 * 60, EstimateSeconds: 2 * 3600},
			{ID: "T2", Title: "late", State: queue.Complete, Owner: "w1", Progress: 100, Summary: "complete",
				WorkedSeconds: 150 * 60, EstimateSeconds: 2 * 3600},
		}}
	md := statusMarkdown(s)
	for _, want := range []string{
		"| Task | Title | Status | Owner | Progress | Worked | Phase | Current step | Subtasks | Errors | Last done | Blocked by |",
		"| T1 | parse | running | w1 | 65% | 1h10m / est. 2h | build | the lexer | 19/29 | 2 | - | - |",
		"| T2 | late | complete | w1 | 100% | 2h30m / est. 2h (over by 30m) | - | - | - | - | - | - |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("STATUS.md lacks %q:\n%s", want, md)
		}
	}
	var b bytes.Buffer
	RenderDashboard(&b, s, now)
	for _, want := range []string{
		"w1 implementing, phase: build, step: the lexer, subtasks 19/29, 2 errors, worked 1h10m / est. 2h\n",
		"w1 worked 2h30m / est. 2h (over by 30m)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("dashboard lacks %q:\n%s", want, b.String())
		}
	}
}

// Two open tasks that modify the same files: STATUS.md lists them under
// their heading and the dashboard in a line, a path that holds Markdown or
// an escape sequence made safe in each.
func TestOverlapsInStatusAndDashboard(t *testing.T) {
	now := time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
	s := Snapshot{Team: "night", UpdatedAt: now, Running: true,
		Overlaps: []Overlap{{Tasks: []string{"T1", "T2"}, Agents: []string{"a", "b"}, Paths: []string{"src/x.go", "*evil*\x1b]0;t\x07.go"},
			Action: "serialize", At: now}}}
	md := statusMarkdown(s)
	if !strings.Contains(md, "## Overlapping work") || !strings.Contains(md, "- T1 (a) and T2 (b) both modify src/x.go, \\*evil\\*") ||
		!strings.Contains(md, "; T2 held until T1 ends") || strings.Contains(md, "\x1b") {
		t.Errorf("STATUS.md:\n%q", md)
	}
	var b bytes.Buffer
	RenderDashboard(&b, s, now)
	if !strings.Contains(b.String(), "   overlap: T1 (a) and T2 (b) both modify src/x.go, *evil*") || strings.Contains(b.String(), "\x1b") {
		t.Errorf("dashboard:\n%q", b.String())
	}
}
