//go:build !e2e

package protocol

import (
	"strings"
	"testing"
)

// The seed block drawn by a TUI at 80 columns — hard-wrapped, words placed
// with cursor moves, each line drawn half first, repainted ten times, then
// repainted again at every pause — is one record with every field.
func TestScreenSeedBlockWrappedAndRepaintedIsOneRecord(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeScreen, 80, 60))
	defer r.Close()
	lines, want := longSeed("T060")
	if len(lines) < 19+6 { // 19 lines, at least 6 of them wrapped
		t.Fatalf("the block is not wrapped: %d lines", len(lines))
	}
	s := newTUIStream(80, 60)
	s.say("> " + Request("T060"))
	r.Typed(Request("T060"))
	s.answer(lines)
	feed(r, s.take(), 4096)
	r.Quiet()
	c.expect(t, 1, 0, 0)
	sameContent(t, c.blocks[0], want)
	for range 5 {
		s.frame("")
		feed(r, s.take(), 700)
		r.Quiet()
	}
	r.Flush()
	c.expect(t, 1, 0, 0)
}

// splitOptional splits wrapped block lines into the required lines (with
// their items and wraps) and the optional ones, each in its order.
func splitOptional(lines []string) (required, optional []string) {
	opt := false
	for _, l := range lines {
		if k := classify(l); k.kind == kindKey {
			opt = isOptional(k.field)
		}
		if opt {
			optional = append(optional, l)
		} else {
			required = append(required, l)
		}
	}
	return required, optional
}

// A TUI read at a pause while it draws the optional lines: the record is
// made from the required lines, then completed (amended) at each pause as
// the optional lines are drawn, half a line at a time — never a second
// record, and the last amendment holds every field.
func TestScreenOptionalLinesDrawnInPartAmendTheRecord(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeScreen, 80, 60))
	defer r.Close()
	lines, want := longSeed("T060")
	required, optional := splitOptional(lines)
	s := newTUIStream(80, 60)
	s.transcript = append(s.transcript, "⏺ "+required[0])
	for _, l := range required[1:] {
		s.transcript = append(s.transcript, "  "+l)
	}
	s.frame("")
	feed(r, s.take(), 500)
	r.Quiet()
	c.expect(t, 1, 0, 0)
	for _, l := range optional {
		half := []rune(l)
		s.transcript = append(s.transcript, "  "+string(half[:len(half)/2]))
		s.frame("⠸")
		feed(r, s.take(), 500)
		r.Quiet()
		s.transcript[len(s.transcript)-1] = "  " + l
		s.frame("⠼")
		feed(r, s.take(), 500)
		r.Quiet()
	}
	for range 5 {
		s.frame("")
		feed(r, s.take(), 500)
		r.Quiet()
	}
	r.Flush()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.rejects) != 0 || len(c.blocks) < 2 {
		t.Fatalf("%d reports, rejects %q", len(c.blocks), c.rejects)
	}
	for i, b := range c.blocks {
		if b.Amends != (i > 0) {
			t.Fatalf("report %d of %d: amends %v: %+v", i, len(c.blocks), b.Amends, b)
		}
	}
	sameContent(t, c.blocks[len(c.blocks)-1], want)
}

// The seeds' lines that come after a pause, in lines mode, reopen the block
// just read: one record, amended with them. One that comes after other
// output is reported as dropped; an unknown key line there is just prose.
func TestLinesLateSeedLinesAmendTheRecord(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeLines, 0, 0))
	defer r.Close()
	feed(r, crlf(validBlock), 5)
	r.Quiet()
	c.expect(t, 1, 0, 0)
	feed(r, crlf("Phase: design\nSubtasks:\n- [x] a\n- [ ] b\nErrors: a.go:3: boom\nFiles Created: c.go\nConfidence: high\n  enough"), 7)
	r.Quiet()
	c.expect(t, 2, 0, 0)
	want := wantValid
	want.Phase, want.FilesCreated = "design", []string{"c.go"}
	want.Subtasks = &Subtasks{Done: 1, Total: 2, Items: []Subtask{{"a", true}, {"b", false}}}
	want.Errors = []ErrorItem{{Where: "a.go:3", Message: "boom"}}
	want.Extra = map[string]string{"Confidence": "high enough"}
	if !c.blocks[1].Amends {
		t.Fatalf("not an amendment: %+v", c.blocks[1])
	}
	sameContent(t, c.blocks[1], want)
	// A second pause: a line the block lacks still completes it.
	feed(r, crlf("Current Step: review"), 7)
	r.Quiet()
	c.expect(t, 3, 0, 0)
	if b := c.blocks[2]; !b.Amends || b.CurrentStep != "review" || b.Phase != "design" {
		t.Fatalf("second late line: %+v", b)
	}
	feed(r, crlf("thinking…\nTicket: prose, not a block line\nCurrent Step: too late\n"), 7)
	c.expect(t, 3, 1, 0)
	if !strings.Contains(c.rejects[0], "Current Step: line came after its block was read") {
		t.Fatalf("reject: %q", c.rejects[0])
	}
}
