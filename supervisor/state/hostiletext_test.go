package state

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/hostiletext"

	"github.com/wardenhq/warden/supervisor/queue"
)

const hostile = hostiletext.Text

var fill = hostiletext.Fill

// controlsIn returns the control characters of s other than newlines.
func controlsIn(s string) []rune {
	var bad []rune
	for _, r := range s {
		if r != '\n' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f)) {
			bad = append(bad, r)
		}
	}
	return bad
}

// Every text field of a snapshot holds hostile text (the seeds' phase and
// current step too): STATUS.md keeps its table rows (one per agent and
// task) and its one heading, and neither it nor the dashboard carries a
// control character.
func TestHostileTextNeverLeavesStatusRaw(t *testing.T) {
	now := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	s := Snapshot{UpdatedAt: now, Agents: make([]AgentStatus, 2), Tasks: make([]queue.Status, 2)}
	fill(reflect.ValueOf(&s))
	s.Tasks[1].Summary = "blocked" // listed under Blocked too
	for i := range s.Tasks {
		if s.Tasks[i].Phase != hostile || s.Tasks[i].CurrentStep != hostile {
			t.Fatalf("the seed fields were not filled: %+v", s.Tasks[i])
		}
		s.Tasks[i].SubtasksDone, s.Tasks[i].SubtasksTotal, s.Tasks[i].Errors = 1, 2, 3
	}
	md := statusMarkdown(s)
	if bad := controlsIn(md); len(bad) > 0 {
		t.Errorf("STATUS.md holds control characters %q:\n%s", bad, md)
	}
	rows, headings := 0, 0
	for _, l := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(l, "|"):
			rows++
		case strings.HasPrefix(l, "#"):
			headings++
		}
	}
	if rows != 2+2+2+2 || headings != 2 { // the title and "## Blocked"
		t.Errorf("STATUS.md has %d table lines and %d headings, want 8 and 2:\n%s", rows, headings, md)
	}
	var b bytes.Buffer
	RenderDashboard(&b, s, now)
	if bad := controlsIn(b.String()); len(bad) > 0 {
		t.Errorf("the dashboard prints control characters %q:\n%s", bad, b.String())
	}
	if n := strings.Count(b.String(), "\n"); n != 1+2+2+2 { // and "Blocked:" with one task
		t.Errorf("the dashboard has %d lines, want 7:\n%s", n, b.String())
	}
}
