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
			{ID: "T2", Title: "two", State: queue.Running, Progress: 20, Summary: "blocked", Blockers: []string{"needs the API key"}},
			{ID: "T3", Title: "three", State: queue.Complete, Progress: 100},
		}}
	md := statusMarkdown(s)
	for _, want := range []string{"Team progress: 53%.", "(2 min ago)", `| T1 | evil \| forged \| \| row |`, "| parsed ]52;c;AAAA  it |",
		"## Blocked", "- T2: needs the API key"} {
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
