//go:build !e2e

package state

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/testrig/hostiletext"
)

// Issue 33: agent text reached STATUS.md as raw HTML — a Completed: item
// `<script>alert(1)</script>` written into the table as it was, its pipes
// escaped and nothing else. Every text of a snapshot now holds Markup (a
// script element, javascript: links and images, an autolink, an entity, a
// code span, emphasis, pipes): STATUS.md holds none of it where a
// renderer would act on it, keeps its own rows and headings, and still
// reads as the agent wrote it.
func TestMarkupNeverActsInStatusMD(t *testing.T) {
	now := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	s := Snapshot{UpdatedAt: now, Agents: make([]AgentStatus, 2), Tasks: make([]queue.Status, 2)}
	hostiletext.FillWith(reflect.ValueOf(&s), hostiletext.Markup)
	s.Tasks[1].Summary = "blocked" // listed under Blocked too
	s.Agents[0].Dialog = hostiletext.Markup
	md := statusMarkdown(s)
	if acting := hostiletext.Acting(md); len(acting) > 0 {
		t.Errorf("STATUS.md holds markup a renderer acts on: %v\n%s", acting, md)
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
	if rows != 14 || headings != 4 { // the title, Blocked, Land, Spent
		t.Errorf("STATUS.md has %d table lines and %d headings, want 14 and 4:\n%s", rows, headings, md)
	}
	if !strings.Contains(md, `\<script\>alert(1)\</script\> \[x\](javascript:alert(1))`) {
		t.Errorf("the agent's text does not read as written:\n%s", md)
	}
}
