package handoff

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/hostiletext"
	"github.com/wardenhq/warden/protocol"
)

const hostile = hostiletext.Text

var fill = hostiletext.Fill

// Every text of a handoff — team, reason, agents, commands, tasks, verify
// results, blockers, every field of the checkpoints, the lead's notes —
// holds hostile text: handoff.md keeps exactly its own headings and table
// rows, and neither it nor the prompt carries a control character.
func TestHostileTextNeverForgesTheHandoff(t *testing.T) {
	d := Data{Time: time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC), Agents: make([]Agent, 2), Tasks: make([]Task, 2)}
	fill(reflect.ValueOf(&d))
	d.Cause = "manual"
	for i := range d.Tasks {
		d.Tasks[i].Blocked = true
	}
	cp := &protocol.Checkpoint{}
	fill(reflect.ValueOf(cp))
	d.Checkpoints = map[string]*protocol.Checkpoint{hostile: cp}
	for name, text := range map[string]string{"handoff.md": Render(d), "prompt": RenderPrompt(d)} {
		var bad []rune
		for _, r := range text {
			if r != '\n' && protocol.IsControl(r) {
				bad = append(bad, r)
			}
		}
		if len(bad) > 0 {
			t.Errorf("%s holds %d control characters, the first %q", name, len(bad), bad[0])
		}
		rows, headings := 0, 0
		for _, l := range strings.Split(text, "\n") {
			switch {
			case strings.HasPrefix(l, "|"):
				rows++
			case strings.HasPrefix(l, "#"):
				headings++
			}
		}
		// # Handoff, ## Team, ## Tasks, ## Blocked, ## Verify results,
		// ## Resumption notes, ### for each of the 2 open tasks, ## Notes
		// from the team lead; 2+2 rows of agents, 2+2 of tasks.
		if rows != 8 || headings != 9 {
			t.Errorf("%s has %d table lines and %d headings, want 8 and 9:\n%s", name, rows, headings, text)
		}
	}
}
