//go:build !e2e

package handoff

import (
	"strings"
	"testing"
)

// A handoff written while the run's land waits for its land task says so:
// what landed, what stopped it and the land task it went to, and each task
// that waits; a run with no land of its own has no Land section.
func TestHandoffSaysWhereTheLandStands(t *testing.T) {
	d := sample()
	if strings.Contains(Render(d), "## Land") {
		t.Errorf("a Land section without a land:\n%s", Render(d))
	}
	d.Land = "warden/nightly/landed: landed T1; stopped at T2 (merging warden/nightly/T2 conflicts in a.go): handed to w1 as land.T2 (attempt 1 of 2)"
	d.LandWaits = []string{"T3: not tried: the land stopped at T2"}
	for _, md := range []string{Render(d), RenderPrompt(d)} {
		for _, want := range []string{"\n## Land\n\n- warden/nightly/landed: landed T1; stopped at T2 (merging warden/nightly/T2 conflicts in a.go): handed to w1 as land.T2 (attempt 1 of 2)\n",
			"- waits: T3: not tried: the land stopped at T2\n"} {
			if !strings.Contains(md, want) {
				t.Errorf("the handoff lacks %q:\n%s", want, md)
			}
		}
	}
}
