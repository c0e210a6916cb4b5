//go:build !e2e

package handoff

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/testrig/hostiletext"
)

const hostile = hostiletext.Text

var fill = hostiletext.Fill

// Every text of a handoff — team, reason, agents, the tasks they held,
// commands, tasks, time worked, verify results, branches and commits,
// blockers, every field of the checkpoints (the seeds' phase, step,
// subtasks, files created, errors and other lines too), the lead's notes —
// holds hostile text: handoff.md keeps exactly its own headings and table
// rows, and neither it nor the prompt carries a control character, nor
// anything that makes text read otherwise than it is (U+202E and the like).
func TestHostileTextNeverForgesTheHandoff(t *testing.T) {
	d := Data{Time: time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC), Agents: make([]Agent, 2), Tasks: make([]Task, 2)}
	fill(reflect.ValueOf(&d))
	d.Cause = "manual"
	for i := range d.Tasks {
		d.Tasks[i].Blocked = true
	}
	d.Tasks[0].Status = "complete" // in the review's "waiting for" lines
	d.Agents[0].Lead = true
	cp := &protocol.Checkpoint{Subtasks: &protocol.Subtasks{Items: make([]protocol.Subtask, 2)}, Errors: make([]protocol.ErrorItem, 2)}
	fill(reflect.ValueOf(cp))
	cp.Extra = map[string]string{hostile: hostile, "Mood": hostile}
	cp.Resumable = true
	d.Checkpoints = map[string]*protocol.Checkpoint{hostile: cp}
	texts := map[string]string{"handoff.md": Render(d), "prompt": RenderPrompt(d)}
	// The same record said not resumable (Resumable: no) is written as such,
	// its text as safe.
	no := *cp
	no.Resumable = false
	d.Checkpoints = map[string]*protocol.Checkpoint{hostile: &no}
	texts["handoff.md of a record not resumable"] = Render(d)
	for name, text := range texts {
		var bad []rune
		for _, r := range text {
			if r != '\n' && (protocol.IsControl(r) || protocol.IsInvisible(r) || r == 0x2028 || r == 0x2029) {
				bad = append(bad, r)
			}
		}
		if len(bad) > 0 {
			t.Errorf("%s holds %d control or invisible characters, the first %q", name, len(bad), bad[0])
		}
		rows := 0
		var headings []string
		for _, l := range strings.Split(text, "\n") {
			switch {
			case strings.HasPrefix(l, "|"):
				rows++
			case strings.HasPrefix(l, "#"):
				headings = append(headings, l)
			}
		}
		// 2+2 rows of agents, 2+2 of tasks, 2+2 of the review; the dialogs'
		// lines stay in their code block, the spent lines in their list.
		if rows != 12 {
			t.Errorf("%s has %d table lines, want 12:\n%s", name, rows, text)
		}
		// Exactly the handoff's own headings, in order: a forged one (the
		// text's "# Forged" at the start of a line) is one too many, or
		// stands where one of these should.
		want := []string{"# Handoff: ", "## Team", "## Tasks", "## Blocked", "## Dialogs open at the stop", "## Review",
			"## Land", "## Spent", "## Resumption notes", "### ", "## Notes from the team lead "}
		ok := len(headings) == len(want)
		for i := 0; ok && i < len(want); i++ {
			ok = headings[i] == want[i] || strings.HasSuffix(want[i], " ") && strings.HasPrefix(headings[i], want[i])
		}
		if !ok {
			t.Errorf("%s has the headings %q, want %q (those ending in a space followed by its text):\n%s", name, headings, want, text)
		}
		seeds := []string{"Other lines of its checkpoint:", "Errors it reported:", "Files it created:", "[to do]"}
		if strings.Contains(name, "not resumable") {
			seeds = []string{"says it cannot be resumed from (Resumable: no)", "Files that session modified: ", "Its notes: "}
		}
		for _, want := range seeds {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q: the seed fields were not rendered", name, want)
			}
		}
	}
}
