//go:build !e2e

package handoff

import (
	"strings"
	"testing"
	"time"
)

// The handoff says what the run and each task spent, under ## Spent,
// before the resumption notes; a run that read no figure has no section.
func TestHandoffSaysWhatWasSpent(t *testing.T) {
	d := Data{Time: time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC), Cause: "budget", Reason: "the team's max_cost $40.00 reached ($40.02 spent)",
		Spent: "spent 1.2M tokens, $40.02 (max_cost $40.00: 100%) — max_cost $40.00 reached",
		Tasks: []Task{{ID: "T1", Status: "in_progress", Spent: "800k tokens, $30.00"}, {ID: "T2", Status: "pending"}}}
	text := Render(d)
	want := "\n## Spent\n\n- The run: spent 1.2M tokens, $40.02 (max_cost $40.00: 100%) — max_cost $40.00 reached\n- T1: 800k tokens, $30.00\n\n## Resumption notes\n"
	if !strings.Contains(text, want) {
		t.Errorf("handoff.md lacks\n%s\nin:\n%s", want, text)
	}
	if strings.Contains(text, "- T2:") {
		t.Errorf("a task that spent nothing has a line:\n%s", text)
	}
	d.Spent, d.Tasks[0].Spent = "", ""
	if text := Render(d); strings.Contains(text, "## Spent") {
		t.Errorf("nothing spent, yet:\n%s", text)
	}
}

// The run's line names `warden resume` as a code span, as STATUS.md does,
// while what it quotes from a CLI (a model's name) stays escaped text.
func TestTheRunsLineKeepsWardenResumeACodeSpan(t *testing.T) {
	d := Data{Time: time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC), Cause: "budget",
		Spent: "spent 22k tokens (unpriced: `rm -rf`) (max_tokens 5000: 440%) — max_tokens 5000 reached: agents parked until `warden resume`"}
	text := Render(d)
	want := "- The run: spent 22k tokens (unpriced: \\`rm -rf\\`) (max_tokens 5000: 440%) — max_tokens 5000 reached: agents parked until `warden resume`\n"
	if !strings.Contains(text, want) {
		t.Errorf("handoff.md lacks\n%s\nin:\n%s", want, text)
	}
}
