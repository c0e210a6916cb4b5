//go:build !e2e

package state

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/testrig/hostiletext"

	"github.com/wardenhq/warden/supervisor/queue"
)

const hostile = hostiletext.Text

var fill = hostiletext.Fill

// controlsIn returns the control characters of s other than newlines, and
// its invisible characters and line separators (U+202E and the like).
func controlsIn(s string) []rune {
	var bad []rune
	for _, r := range s {
		if r != '\n' && (protocol.IsControl(r) || protocol.IsInvisible(r) || r == 0x2028 || r == 0x2029) {
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
		t.Errorf("STATUS.md holds control or invisible characters %q:\n%s", bad, md)
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
	// The title, "## Blocked", "## Land" and "## Spent" (a row for each agent and task).
	if rows != 2+2+2+2+2+2+2 || headings != 4 {
		t.Errorf("STATUS.md has %d table lines and %d headings, want 14 and 4:\n%s", rows, headings, md)
	}
	var b bytes.Buffer
	RenderDashboard(&b, s, now)
	if bad := controlsIn(b.String()); len(bad) > 0 {
		t.Errorf("the dashboard prints control or invisible characters %q:\n%s", bad, b.String())
	}
	if n := strings.Count(b.String(), "\n"); n != 1+1+2+2+2+1 { // the spend, "Blocked:" with one task, the land
		t.Errorf("the dashboard has %d lines, want 9:\n%s", n, b.String())
	}
}

// An event whose fields hold hostile text (an agent's dialog, a reason) is
// one line of events.jsonl with no control character and nothing invisible
// raw: they are \u escapes, which decode to the same text.
func TestEventsCarryNothingRawThatReadsOtherwise(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	l, err := OpenEventLog(hclog.NewNullLogger(), path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	l.Emit("agent_waiting", "w", "T1", "text", hostile, "blockers", []string{hostile})
	l.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bad := controlsIn(strings.TrimSuffix(string(data), "\n")); len(bad) > 0 || strings.Count(string(data), "\n") != 1 {
		t.Fatalf("events.jsonl holds %q raw:\n%s", bad, data)
	}
	evs, err := ReadEvents(path)
	if err != nil || len(evs) != 1 || evs[0]["text"] != hostile {
		t.Fatalf("the event does not read back as it was: %v %v", evs, err)
	}
}
