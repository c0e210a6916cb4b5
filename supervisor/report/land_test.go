//go:build !e2e

package report

import (
	"strings"
	"testing"

	"github.com/wardenhq/warden/supervisor/state"
)

// The morning report says what landed on the integration branch, in
// order, and what stopped the land and why (warden land's events); a
// later land replaces an earlier one. The why is an agent's or git's
// words: escaped in report.md.
func TestTheReportSaysWhatLanded(t *testing.T) {
	r := newCrafted(t, state.EndedFinished, false, 300).
		event(0, "run_started", "", "", "run_id", "R1", "how", "new").
		event(100, "team_done", "", "", "exit_code", 1).
		event(110, "land_stopped", "", "T3", "why", "merging warden/night/T3 conflicts in *api*.go", "branch", "warden/night/landed").
		event(111, "work_landed", "", "", "branch", "warden/night/landed", "base", "main", "tasks", []string{"T1", "T2"},
			"verify", "passed", "base_moved", false, "stopped", true).
		build(300)
	if r.Land == nil || r.Land.Branch != "warden/night/landed" || strings.Join(r.Land.Tasks, ",") != "T1,T2" ||
		!r.Land.Stopped || r.Land.StoppedAt != "T3" || !strings.Contains(r.Land.Why, "conflicts") {
		t.Fatalf("land: %+v", r.Land)
	}
	text := unwrapped(Text(r))
	for _, want := range []string{"## Landed on warden/night/landed", "Merged in order: T1, T2.",
		"Stopped at T3: merging warden/night/T3 conflicts in *api*.go"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	if md := Markdown(r); !strings.Contains(md, `\*api\*.go`) {
		t.Errorf("report.md does not escape the why:\n%s", md)
	}

	// Landed again after the conflict was fixed: the last land is said.
	again := newCrafted(t, state.EndedFinished, false, 300).
		event(0, "run_started", "", "", "run_id", "R1", "how", "new").
		event(110, "land_stopped", "", "T3", "why", "conflict", "branch", "warden/night/landed").
		event(111, "work_landed", "", "", "branch", "warden/night/landed", "base", "main", "tasks", []string{"T1", "T2"}, "stopped", true).
		event(200, "work_landed", "", "", "branch", "warden/night/landed", "base", "main", "tasks", []string{"T1", "T2", "T3"},
			"base_moved", true, "stopped", false).
		build(300)
	if again.Land == nil || again.Land.Stopped || len(again.Land.Tasks) != 3 || !again.Land.BaseMoved {
		t.Fatalf("the later land: %+v", again.Land)
	}
	if text := unwrapped(Text(again)); !strings.Contains(text, "main fast-forwarded to it") || strings.Contains(text, "Stopped") {
		t.Errorf("the later land:\n%s", text)
	}
	// No land: no section.
	none := newCrafted(t, state.EndedFinished, false, 300).event(0, "run_started", "", "", "run_id", "R1", "how", "new").build(300)
	if none.Land != nil || strings.Contains(Text(none), "Landed on") {
		t.Errorf("a run without a land: %+v", none.Land)
	}
}

// A run that handed its land to land_by: the report names each land task
// and what was left for a person.
func TestTheReportSaysWhatWasHandedAndLeft(t *testing.T) {
	r := newCrafted(t, state.EndedFinished, false, 300).
		event(0, "run_started", "", "", "run_id", "R1", "how", "new").
		event(110, "land_stopped", "", "T3", "why", "conflict", "branch", "warden/night/landed").
		event(111, "work_landed", "", "", "branch", "warden/night/landed", "base", "main", "tasks", []string{"T1", "T2"}, "stopped", true).
		event(112, "land_handed", "fixer", "land.T3", "lands", "T3", "attempt", 1).
		event(150, "land_stopped", "", "T3", "why", "land_verify failed", "branch", "warden/night/landed").
		event(151, "work_landed", "", "", "branch", "warden/night/landed", "base", "main", "tasks", []string{"T1", "T2"}, "stopped", true).
		event(152, "land_left", "fixer", "T3", "why", "land_verify failed", "reason", "land_attempts 1 spent").
		build(300)
	text := unwrapped(Text(r))
	for _, want := range []string{"Handed to an agent: land.T3 to fixer for T3, attempt 1.",
		"Left for a person: T3 (land_attempts 1 spent).", "Stopped at T3: land_verify failed"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
}
