//go:build !e2e

package handoff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol"
)

func sample() Data {
	return Data{
		Team: "nightly", Reason: "signal file checkpoint-needed", Time: time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC),
		Agents: []Agent{{Name: "w1", Profile: "plain", State: "stopped", Lead: true, Task: "T1", Command: []string{"agent", "--x"}},
			{Name: "w2", Profile: "claude", State: "stopped", Task: "T2", Forced: true}},
		Tasks: []Task{
			{ID: "T1", Title: "done one", Status: "complete", Owner: "w1", Progress: 100, Verify: "passed", Attempts: 1,
				Worked: "2h30m / est. 2h (over by 30m)", Branch: "warden/nightly/T1", Base: "main", Ahead: 2,
				Commit: "0123456789abcdef0123456789abcdef01234567"},
			{ID: "T2", Title: "open | one", Status: "pending", Owner: "w2", Progress: 40, BlockedBy: []string{"T1"}, Attempts: 2,
				Worked: "40m", Verify: "failed: exit status 1"},
			{ID: "T3", Title: "not started", Status: "waiting", BlockedBy: []string{"T2"}},
		},
		Checkpoints: map[string]*protocol.Checkpoint{"T2": {TaskID: "T2", Attempt: 1, ProgressPercent: 40, Resumable: true,
			Status: "implementing", Completed: []string{"parser"}, Remaining: []string{"tests"},
			ResumeInstructions: "run go test first"}},
	}
}

func TestRenderHasEveryPart(t *testing.T) {
	md := Render(sample())
	for _, want := range []string{
		"# Handoff: nightly", "Reason: signal file checkpoint-needed", "2026-11-22T03:00:00Z",
		"| Agent | Profile | Role | Task | State | Command |",
		"| w1 | plain | **lead** | T1 | stopped | `agent --x` |", "| w2 | claude | worker | T2 | stopped (killed after shutdown_timeout) |",
		"| T1 | done one | complete | w1 | 100% | 2h30m / est. 2h (over by 30m) | - |", "| T2 | open \\| one | pending | w2 | 40% | 40m | T1 |",
		"| T3 | not started | waiting | - | 0% | - | T2 |",
		"## Review\n\n| Task | Status | Verify | Branch | Last commit | Attempts |",
		"| T1 | complete | passed | warden/nightly/T1 (2 ahead of main) | 0123456789ab | 1 |",
		"| T2 | pending | failed: exit status 1 | - | - | 2 |", "| T3 | waiting | - | - | - | 0 |",
		"Complete, waiting for your review and merge: T1 (warden/nightly/T1 into main).",
		"### T2: open \\| one", "Resume instructions from the previous session: run go test first",
		"  * tests", "### T3: not started", "No checkpoint yet",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("handoff lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "### T1") {
		t.Error("a complete task has resumption notes")
	}
}

// An agent the team stopped while it waited on a dialog: its row says so,
// the dialog is written out as its screen showed it, and the resumption
// notes of its task say that what it asked for was not done; in the
// fresh sessions' prompt too. A handoff without one has no such section.
func TestHandoffSaysTheDialogOpenAtTheStop(t *testing.T) {
	if md := Render(sample()); strings.Contains(md, "Dialogs open") || strings.Contains(md, "dialog") {
		t.Errorf("a handoff without an open dialog mentions one:\n%s", md)
	}
	d := sample()
	d.Agents[1].Dialog = "Bash command\n\n  rm -rf build\n\nDo you want to proceed?\n❯ 1. Yes\n  2. No, and tell Claude what to do differently (esc)\n"
	for name, text := range map[string]string{"handoff.md": Render(d), "prompt": RenderPrompt(d)} {
		for _, want := range []string{
			"| w2 | claude | worker | T2 | stopped (killed after shutdown_timeout) (waiting on a dialog: below) |",
			"\n## Dialogs open at the stop\n\n- w2 (on T2) waited on this dialog; nobody answered it:\n\n" +
				"      Bash command\n      \n        rm -rf build\n      \n      Do you want to proceed?\n      ❯ 1. Yes\n" +
				"        2. No, and tell Claude what to do differently (esc)\n\n## Review",
			"### T2: open | one\n\nWhen the team stopped, w2 waited on a dialog nobody answered (under Dialogs open at the stop): what it asked for was not done.\nYou are resuming task T2",
		} {
			if name == "handoff.md" { // Markdown: the title's pipe escaped
				want = strings.ReplaceAll(want, "open | one", `open \| one`)
			}
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, text)
			}
		}
		if strings.Count(text, "waited on a dialog nobody answered") != 1 {
			t.Errorf("%s: the note is not in T2's resumption notes alone:\n%s", name, text)
		}
	}
}

func TestWriteKeepsEveryHandoff(t *testing.T) {
	dir := t.TempDir()
	d := sample()
	for i := 0; i < 2; i++ {
		d.Time = d.Time.Add(time.Minute)
		p := filepath.Join(dir, "handoff.md")
		if err := Write(p, filepath.Join(dir, "handoffs"), d); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Errorf("handoff.md mode %v", fi.Mode().Perm())
		}
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "handoffs", "*.md"))
	if len(kept) != 2 {
		t.Fatalf("handoffs/ holds %v", kept)
	}
}

func TestWriteFailsOnReadOnlyStateDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "handoffs"), []byte("a file where the directory goes"), 0o600)
	if err := Write(filepath.Join(dir, "handoff.md"), filepath.Join(dir, "handoffs"), sample()); err == nil {
		t.Fatal("handoff written where it cannot be")
	}
	if _, err := os.Stat(filepath.Join(dir, "handoff.md")); err == nil {
		t.Fatal("handoff.md written although the sequence failed")
	}
}

// The Review section says which completed tasks wait for what: a merge of
// their branch, a review of the agent's directory (shared mode), nothing
// (their branch is in base already); and that nothing waits before any
// task is complete.
func TestReviewSaysWhatWaits(t *testing.T) {
	d := sample()
	d.Tasks = []Task{
		{ID: "A", Status: "complete", Branch: "warden/n/A", Base: "main", Ahead: 1},
		{ID: "B", Status: "complete"},
		{ID: "C", Status: "complete", Branch: "warden/n/C", Base: "main", Ahead: 0},
		{ID: "D", Status: "in_progress", Branch: "warden/n/D", Base: "main", Ahead: 3},
	}
	md := Render(d)
	for _, want := range []string{
		"Complete, waiting for your review and merge: A (warden/n/A into main).\n",
		"Complete, waiting for your review (the work is in the agent's directory): B.\n",
		"Complete and already in their base branch: C (main).\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("handoff lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "D (warden/n/D") {
		t.Errorf("an open task is said to wait for a merge:\n%s", md)
	}
	d.Tasks = d.Tasks[3:]
	if md := Render(d); !strings.Contains(md, "No task is complete yet: nothing waits for a review.") {
		t.Errorf("handoff with no complete task:\n%s", md)
	}
}

// A record its agent said cannot be resumed from (Resumable: no) is shown
// as such in the handoff — and so in the prompt it goes into —, never as
// one to resume with its completed items not to be redone (issue 31). A
// task reported done and not yet verified is still resumed, to be verified.
func TestAnUnresumableRecordIsNotResumedInTheHandoff(t *testing.T) {
	d := sample()
	cp := d.Checkpoints["T2"]
	cp.CheckpointID, cp.Resumable, cp.Notes = "w2-T2-1", false, "half-way through the migration"
	cp.FilesModified, cp.Extra = []string{"db.sql"}, map[string]string{"Resumable": "no"}
	for name, text := range map[string]string{"handoff.md": Render(d), "prompt": RenderPrompt(d)} {
		for _, bad := range []string{"You are resuming task T2", "Already completed (do not redo)", "Resume instructions from the previous session"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s says %q of a record that cannot be resumed from:\n%s", name, bad, text)
			}
		}
		for _, want := range []string{"### T2: open | one\n\nTask T2 is not resumed: its last checkpoint w2-T2-1 (status implementing, 40%, " +
			"at 0001-01-01 00:00 UTC) says it cannot be resumed from (Resumable: no). Its next session starts the task from its prompt",
			"Files that session modified: db.sql\n", "Its notes: half-way through the migration\n"} {
			if name == "handoff.md" { // Markdown: the title's pipe escaped
				want = strings.ReplaceAll(want, "open | one", `open \| one`)
			}
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, text)
			}
		}
	}
	// Reported done, not verified: resumed, to be verified.
	cp.Status = protocol.StatusComplete
	if text := Render(d); !strings.Contains(text, "You are resuming task T2") {
		t.Errorf("a record reported complete is not resumed:\n%s", text)
	}
}
