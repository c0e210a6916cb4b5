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

// Issue 33: every text of a handoff from outside warden — team, reason,
// agents, tasks, verify results, branches, blockers, dialogs, every field
// of the checkpoints, the lead's notes — holds Markup: handoff.md holds
// none of it where a renderer would act on it (the agents' commands, the
// team file's, stay code spans with no backtick inside, and a dialog an
// indented code block, as its screen showed it); the fresh
// sessions' prompt keeps the text as the agent wrote it.
func TestMarkupNeverActsInTheHandoff(t *testing.T) {
	m := hostiletext.Markup
	d := Data{Time: time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC), Agents: make([]Agent, 2), Tasks: make([]Task, 2)}
	hostiletext.FillWith(reflect.ValueOf(&d), m)
	d.Cause = "manual"
	for i := range d.Tasks {
		d.Tasks[i].Blocked = true
	}
	d.Tasks[0].Status = "complete" // in the review's "waiting for" lines
	d.Tasks[0].Ahead = 2
	d.Agents[0].Lead = true
	cp := &protocol.Checkpoint{Subtasks: &protocol.Subtasks{Items: make([]protocol.Subtask, 2)}, Errors: make([]protocol.ErrorItem, 2),
		Git: &protocol.Git{}}
	hostiletext.FillWith(reflect.ValueOf(cp), m)
	cp.Resumable = true
	d.Checkpoints = map[string]*protocol.Checkpoint{d.Tasks[1].ID: cp}
	md := Render(d)
	var commands []string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| ") && strings.HasSuffix(l, "` |") { // a Team row: its command is a code span
			i := strings.LastIndex(l[:len(l)-3], "| `")
			commands = append(commands, l[i+3:len(l)-3])
			md = strings.Replace(md, l[i:], "| (command) |", 1)
		}
	}
	if len(commands) != 2 || strings.Contains(strings.Join(commands, ""), "`") {
		t.Errorf("the commands are not code spans of their own: %q", commands)
	}
	// A dialog is written as its screen showed it, in an indented code
	// block, which nothing in it can leave and where nothing acts.
	var kept []string
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "      ") {
			kept = append(kept, l)
		} else if strings.TrimSpace(l) != "" && !strings.Contains(l, "<script>alert(1)</script>") {
			t.Errorf("a dialog line is not the dialog as written: %q", l)
		}
	}
	md = strings.Join(kept, "\n")
	if acting := hostiletext.Acting(md); len(acting) > 0 {
		t.Errorf("handoff.md holds markup a renderer acts on: %v\n%s", acting, md)
	}
	for _, want := range []string{"Resume instructions from the previous session: \\- \\<script\\>alert(1)\\</script\\>",
		"## Resumption notes", "## Review", "## Blocked"} {
		if !strings.Contains(md, want) {
			t.Errorf("handoff.md lacks %q:\n%s", want, md)
		}
	}
	if p := RenderPrompt(d); !strings.Contains(p, "Resume instructions from the previous session: "+m) {
		t.Errorf("the prompt does not give the agent's text as written:\n%s", p)
	}
}
