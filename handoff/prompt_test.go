//go:build !e2e

package handoff

import (
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol"
)

// seedCheckpoint is a record with every field of the seeds.
func seedCheckpoint() *protocol.Checkpoint {
	return &protocol.Checkpoint{TaskID: "T7", Attempt: 2, ProgressPercent: 65, Status: "implementing", Resumable: true,
		UpdatedAt:          time.Date(2026, 11, 23, 2, 10, 0, 0, time.UTC),
		ResumeInstructions: "run make test first",
		Phase:              "build", CurrentStep: "wire the lexer",
		Subtasks: &protocol.Subtasks{Done: 1, Total: 3, Items: []protocol.Subtask{
			{Text: "parse the header", Done: true}, {Text: "wire the lexer"}, {Text: "write the docs"}}},
		Completed: []string{"parse the header"}, Remaining: []string{"wire the lexer", "write the docs"},
		FilesModified: []string{"a.go"}, FilesCreated: []string{"lexer.go", "lexer_test.go"},
		Errors:   []protocol.ErrorItem{{Message: "undefined: tok", Where: "lexer.go:12"}, {Message: "flaky network"}},
		Blockers: []string{"none really"}, Notes: "slow CI",
		Extra: map[string]string{"Mood": "steady", "Branch Note": "rebased"},
	}
}

// A resumed session's first prompt writes the checkpoint out as prose:
// resume instructions first, then phase and step, the subtasks checklist
// (done and not), what is done and remains, files modified and created,
// errors with their locations, blockers, notes and the other lines.
func TestResumeTextHasTheSeedFields(t *testing.T) {
	text := Prompt{Preamble: "PREAMBLE", Task: "Your task: T7.", Checkpoint: seedCheckpoint(), Attempt: 3}.Render()
	want := []string{
		"You are resuming task T7 (attempt 3). The previous session reached 65% (implementing) at 2026-11-23 02:10 UTC.",
		"Resume instructions from the previous session: run make test first",
		"It was in phase build, at the step: wire the lexer",
		"It had done 1 of its 3 subtasks (do not redo the done ones):",
		"  * [done] parse the header", "  * [to do] wire the lexer", "  * [to do] write the docs",
		"Already completed (do not redo):",
		"Files it modified: a.go", "Files it created: lexer.go, lexer_test.go",
		"Errors it reported:", "  * undefined: tok (at lexer.go:12)", "  * flaky network",
		"Blockers it reported:", "Its notes: slow CI",
		"Other lines of its checkpoint:", "  * Branch Note: rebased", "  * Mood: steady",
	}
	at := 0
	for _, w := range want {
		i := strings.Index(text[at:], w+"\n")
		if i < 0 {
			t.Fatalf("the prompt lacks %q after position %d (or has it out of order):\n%s", w, at, text)
		}
		at += i + len(w)
	}
	if strings.Contains(text, "CHECKPOINT:") || strings.Contains(text, "Subtasks:") || strings.Contains(text, "Phase:") {
		t.Errorf("the resume prose holds a line the block parser would read as its own:\n%s", text)
	}

	// A count without a checklist, a phase without a step.
	cp := seedCheckpoint()
	cp.Subtasks, cp.CurrentStep = &protocol.Subtasks{Done: 19, Total: 29}, ""
	text = ResumeText(cp, 3)
	for _, w := range []string{"It was in phase build.\n", "It had done 19 of its 29 subtasks.\n"} {
		if !strings.Contains(text, w) {
			t.Errorf("the prose lacks %q:\n%s", w, text)
		}
	}
	// A record without the seeds' lines says nothing of them.
	text = ResumeText(&protocol.Checkpoint{TaskID: "T1", Status: "implementing", Resumable: true}, 1)
	for _, w := range []string{"phase", "step", "subtasks", "created", "Errors", "Other lines"} {
		if strings.Contains(text, w) {
			t.Errorf("a record without seed lines: the prose says %q:\n%s", w, text)
		}
	}
}

// The attempt a resumed session is told is the session's own — its task's
// sessions so far, this one included —, not the record's attempt plus one:
// a record chosen with --from is older than the task's last session
// (issue 31). The handoff names each open task's next session's.
func TestTheResumeTextNamesTheSessionsAttempt(t *testing.T) {
	cp := seedCheckpoint() // attempt 2
	text := Prompt{Task: "Your task: T7.", Checkpoint: cp, Attempt: 5}.Render()
	if !strings.Contains(text, "You are resuming task T7 (attempt 5). ") {
		t.Errorf("the prompt does not name the session's attempt 5:\n%s", text)
	}
	d := Data{Tasks: []Task{{ID: "T7", Status: "pending", Attempts: 4}}, Checkpoints: map[string]*protocol.Checkpoint{"T7": cp}}
	if text := Render(d); !strings.Contains(text, "You are resuming task T7 (attempt 5). ") {
		t.Errorf("the handoff does not name the next session's attempt 5:\n%s", text)
	}
}
