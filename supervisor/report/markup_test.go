//go:build !e2e

package report

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/hostiletext"
)

// Issue 33: every text of a report holds Markup, long enough to be
// wrapped: report.md holds none of it where a renderer would act on it —
// a line is never cut between an escape's backslash and what it escapes —
// and every line still fits; `warden report` prints it as written.
func TestMarkupNeverActsInTheReport(t *testing.T) {
	long := hostiletext.Markup + " " + strings.Repeat("<script>alert(1)</script>", 6)
	r := &Report{Tasks: make([]Task, 2), Agents: make([]Agent, 2), Waits: make([]Wait, 2), Restarts: make([]Restart, 2),
		Failures: make([]Failure, 2), Limits: make([]Limit, 2), TeamCheckpoints: make([]TeamCheckpoint, 2)}
	hostiletext.FillWith(reflect.ValueOf(r), long)
	r.Run.Started = time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)
	r.Run.EndedAt = r.Run.Started.Add(time.Hour)
	r.Run.Ended = "finished"
	for i := range r.Waits {
		r.Waits[i].WaitedSeconds = 30
	}
	r.Summary.Tasks = 2
	md := Markdown(r)
	if acting := hostiletext.Acting(md); len(acting) > 0 {
		t.Errorf("report.md holds markup a renderer acts on: %v\n%s", acting, md)
	}
	for _, l := range strings.Split(md, "\n") {
		if w := widthOf(l); w > Width {
			t.Errorf("a line of %d columns: %q", w, l)
		}
	}
	if text := unwrapped(Text(r)); !strings.Contains(text, "<script>alert(1)</script> [x](javascript:alert(1))") {
		t.Errorf("the terminal text changes what the agent wrote:\n%s", text)
	}
}

// A word longer than a line is cut wherever the width says, but never
// between an escape's backslash and what it escapes: the backslash goes
// down with it, whatever the cut's column.
func TestAWrapNeverCutsAnEscape(t *testing.T) {
	for k := range 4 {
		md := Markdown(&Report{Team: strings.Repeat("a", k) + strings.Repeat("<", 250)})
		for i := 0; i < len(md); i++ {
			if md[i] != '<' {
				continue
			}
			n := 0
			for j := i - 1; j >= 0 && md[j] == '\\'; j-- {
				n++
			}
			if n%2 == 0 {
				t.Errorf("padding %d: a bare < at %d:\n%s", k, i, md)
				break
			}
		}
		for _, l := range strings.Split(md, "\n") {
			if w := widthOf(l); w > Width {
				t.Errorf("a line of %d columns: %q", w, l)
			}
		}
	}
}
