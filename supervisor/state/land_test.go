//go:build !e2e

package state

import (
	"strings"
	"testing"
)

// STATUS.md's Land section (and warden status's dashboard) says what landed, what stopped the land and
// what it waits for: its land task, or a person.
func TestStatusSaysWhereTheLandStands(t *testing.T) {
	s := &Snapshot{Team: "night"}
	if md := statusMarkdown(*s); strings.Contains(md, "## Land") {
		t.Errorf("a Land section without a land:\n%s", md)
	}
	s.Land = &Land{Branch: "warden/night/landed", Landed: []string{"T1"}, StoppedAt: "T2", Why: "merging warden/night/T2 conflicts in a.go",
		Handed: "land.T2", By: "fixer", Attempt: 1, Attempts: 2, Waits: []string{"T3: not tried: the land stopped at T2"}}
	md := statusMarkdown(*s)
	for _, want := range []string{"## Land", "- warden/night/landed: landed T1; stopped at T2 (merging warden/night/T2 conflicts in a.go): handed to fixer as land.T2 (attempt 1 of 2)",
		"- waits: T3: not tried: the land stopped at T2"} {
		if !strings.Contains(md, want) {
			t.Errorf("STATUS.md lacks %q:\n%s", want, md)
		}
	}
	var dash strings.Builder
	RenderDashboard(&dash, *s, s.UpdatedAt)
	if !strings.Contains(dash.String(), "   land: warden/night/landed: landed T1; stopped at T2") {
		t.Errorf("the dashboard (warden status) lacks the land:\n%s", dash.String())
	}
	s.Land = &Land{Branch: "warden/night/landed", StoppedAt: "T2", Why: "x", Left: true}
	if md := statusMarkdown(*s); !strings.Contains(md, "warden/night/landed: nothing landed yet; stopped at T2 (x): left for a person") {
		t.Errorf("STATUS.md of a land left for a person:\n%s", md)
	}
}
