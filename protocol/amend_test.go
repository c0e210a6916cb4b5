//go:build !e2e

package protocol

import "testing"

// Amendments compare every optional field: what only adds (a line, an
// item, a key, or a value drawn further) completes the record; what changes
// or takes away is another answer.
func TestCompletesWithSeedLines(t *testing.T) {
	prev := wantSeed()
	prev.Errors = []ErrorItem{{Message: "a.go:1"}}
	prev.Blockers = []string{"the fix"}
	prev.Subtasks = &Subtasks{Done: 1, Total: 1, Items: []Subtask{{"pa", true}}}
	for _, tc := range []struct {
		name  string
		edit  func(b *Block)
		wants bool
	}{
		{"same", func(b *Block) {}, false},
		{"error item drawn further", func(b *Block) { b.Errors = []ErrorItem{{Where: "a.go:12", Message: "undefined"}} }, true},
		{"error added", func(b *Block) { b.Errors = append(b.Errors, ErrorItem{Message: "x"}) }, true},
		{"error changed", func(b *Block) { b.Errors = []ErrorItem{{Message: "b.go:1"}} }, false},
		{"blocker drawn further", func(b *Block) { b.Blockers = []string{"the fixture is down"} }, true},
		{"subtask drawn further", func(b *Block) { b.Subtasks = &Subtasks{Done: 1, Total: 1, Items: []Subtask{{"parse", true}}} }, true},
		{"subtask added", func(b *Block) {
			b.Subtasks = &Subtasks{Done: 1, Total: 2, Items: []Subtask{{"pa", true}, {"b", false}}}
		}, true},
		{"subtask unticked", func(b *Block) { b.Subtasks = &Subtasks{Done: 0, Total: 1, Items: []Subtask{{"pa", false}}} }, false},
		{"subtasks gone", func(b *Block) { b.Subtasks = nil }, false},
		{"extra key added", func(b *Block) { b.Extra = map[string]string{"Confidence": "high", "Risk": "low"} }, true},
		{"extra value drawn further", func(b *Block) { b.Extra = map[string]string{"Confidence": "high, really"} }, true},
		{"extra key gone", func(b *Block) { b.Extra = nil; b.Notes = "more" }, false},
		{"phase changed", func(b *Block) { b.Phase = "build" }, false},
		{"step drawn further", func(b *Block) { b.CurrentStep += " and more" }, true},
		{"created added", func(b *Block) { b.FilesCreated = append(b.FilesCreated, "d.go") }, true},
		{"required changed", func(b *Block) { b.Progress = 70; b.Notes = "more" }, false},
	} {
		b := prev
		b.Extra = map[string]string{"Confidence": "high"}
		tc.edit(&b)
		if got := completes(&b, &prev, "", ""); got != tc.wants {
			t.Errorf("%s: completes = %v", tc.name, got)
		}
	}
	// A text that continues the record's text, its last word drawn further:
	// a half-drawn key line read as more of the line above ("Subt").
	b := prev
	b.Blockers = []string{"the fix"}
	b.Subtasks = nil
	prevWords := "CHECKPOINT: T060 Status: implementing Blockers: - the fix Subt "
	words := "CHECKPOINT: T060 Status: implementing Blockers: - the fix Subtasks: - [x] pa "
	prev.Blockers = []string{"the fix Subt"}
	if completes(&b, &prev, "", "") || !completes(&b, &prev, words, prevWords) {
		t.Error("a block drawn further is not an amendment")
	}
	if completes(&b, &prev, "CHECKPOINT: T060 Status: implementing Blockers: - the fox ", prevWords) {
		t.Error("another text is an amendment")
	}
}

// The echo of what warden types never continues a block: a request typed
// after a block taken at a pause (its echo a "Key: value" line to look at)
// is the start of a new epoch, not an extra line of the old answer; nor
// does any Key: value line with warden's word CHECKPOINT in its key join a
// block.
func TestEchoAfterAHeldBlockIsNoExtraLine(t *testing.T) {
	for _, typed := range []string{Request("T060"), "VERIFY FAILED for T060: `go test` ended with exit status 1."} {
		c := newCollector()
		r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
		feed(r, crlf(validBlock), 5)
		r.Quiet()
		r.Typed(typed)
		feed(r, crlf(typed), 5)
		r.Quiet()
		r.Flush()
		c.expect(t, 1, 0, 0)
		if c.blocks[0].Extra != nil {
			t.Fatalf("extra %q", c.blocks[0].Extra)
		}
	}
	b := parseOne(t, validBlock+"\nCHECKPOINT REQUEST: T060 (answer with your checkpoint block)\nTEAM CHECKPOINT: manual")
	if b.Extra != nil {
		t.Fatalf("extra %q", b.Extra)
	}
}
