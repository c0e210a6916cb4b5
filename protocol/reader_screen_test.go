//go:build !e2e

package protocol

import (
	"reflect"
	"strings"
	"testing"
)

var answerLines = strings.Split(validBlock, "\n")

func TestScreenTUIAnswerRepaintedOnce(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeScreen, 80, 30))
	defer r.Close()
	s := newTUIStream(80, 30)
	s.say("ready")
	s.say("> " + Request("T060"))
	s.answer(answerLines)
	stream := s.take()
	// Quiet only once the output has stopped, as the supervisor does.
	feed(r, stream, 4096)
	r.Quiet()
	r.Quiet()
	c.expect(t, 1, 0, 0)
	if !reflect.DeepEqual(c.blocks[0], wantValid) {
		t.Fatalf("got %+v", c.blocks[0])
	}
	// Ten more repaints of the same screen, each followed by Quiet.
	for range 10 {
		s.frame("")
		feed(r, s.take(), 512)
		r.Quiet()
	}
	r.Flush()
	c.expect(t, 1, 0, 0)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !strings.HasPrefix(string(c.replies), "\x1b[?62;") {
		t.Fatalf("device attributes query not answered: %q", c.replies)
	}
}

// A block without its last fields is read once more at the next Quiet
// before it is rejected (Quiet says so: again); the same at that Quiet, it
// is rejected, and the whole block drawn later is recorded.
func TestScreenHalfDrawnFrameIsRejectedThenRecorded(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeScreen, 80, 30))
	defer r.Close()
	s := newTUIStream(80, 30)
	s.transcript = append(s.transcript, "⏺ "+answerLines[0], "  "+answerLines[1], "  "+answerLines[2])
	s.frame("⠸ Thinking")
	feed(r, s.take(), 100)
	if !r.Quiet() { // the model paused mid-block
		t.Error("Quiet on a block that does not parse: again = false, want true")
	}
	c.expect(t, 0, 0, 0)
	r.Quiet() // read the same
	c.expect(t, 0, 1, 0)
	s.transcript = s.transcript[:0]
	s.answer(answerLines)
	feed(r, s.take(), 100)
	r.Quiet()
	c.expect(t, 1, 1, 0)
}

// A TUI slowed down mid-draw (a loaded machine) shows a block without its
// last fields for longer than a settle; drawn whole before the next Quiet,
// it is recorded and nothing is rejected.
func TestScreenSlowDrawIsNotRejected(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeScreen, 80, 30))
	defer r.Close()
	s := newTUIStream(80, 30)
	s.transcript = append(s.transcript, "⏺ "+answerLines[0], "  "+answerLines[1], "  "+answerLines[2])
	s.frame("")
	feed(r, s.take(), 100)
	r.Quiet()
	s.transcript = s.transcript[:0]
	s.answer(answerLines)
	feed(r, s.take(), 100)
	if r.Quiet() {
		t.Error("Quiet once the block parses: again = true, want false")
	}
	c.expect(t, 1, 0, 0)
}

func TestScreenOldBlockIsNotTheAnswerToANewRequest(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeScreen, 80, 40))
	defer r.Close()
	s := newTUIStream(80, 40)
	s.answer(answerLines) // unasked
	feed(r, s.take(), 300)
	r.Quiet()
	c.expect(t, 1, 0, 0)
	r.Typed(Request("T060"))
	s.say("> " + Request("T060")) // the TUI shows the request; the old block is still visible
	feed(r, s.take(), 300)
	r.Quiet()
	c.expect(t, 1, 0, 0)
	s.say("Working on it.")
	feed(r, s.take(), 300)
	r.Quiet()
	c.expect(t, 1, 0, 0)
	s.answer(answerLines) // the same content, answered after the request
	feed(r, s.take(), 300)
	r.Quiet()
	c.expect(t, 2, 0, 0)
	r.Flush()
	c.expect(t, 2, 0, 0)
}

func TestScreenEchoOfPreambleAndHandoff(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeScreen, 100, 60))
	defer r.Close()
	prompt := Preamble(Task{ID: "T060", Lead: true}) + "\nYour last checkpoint:\n" + validBlock
	r.Typed(prompt)
	s := newTUIStream(100, 60)
	for i, l := range strings.Split(prompt, "\n") {
		if i == 0 {
			l = "> " + l
		} else {
			l = "  " + l
		}
		s.transcript = append(s.transcript, wrap80(l)...)
	}
	s.frame("")
	feed(r, s.take(), 1000)
	r.Quiet()
	r.Typed(Request("T060"))
	s.say("> " + Request("T060"))
	feed(r, s.take(), 1000)
	r.Quiet()
	r.Flush()
	c.expect(t, 0, 0, 0)
}

func TestScreenScrollbackAndHardWraps(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeScreen, 80, 10))
	defer r.Close()
	notes := "Notes: " + strings.Repeat("wrapped words ", 12)
	text := "● " + validBlock + "\n" + notes + "\n"
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		for _, w := range wrap80("  " + l) {
			b.WriteString(w + "\r\n")
		}
	}
	for i := range 30 { // push the block off the top of a 10-row screen
		b.WriteString("more output " + strings.Repeat("x", i) + "\r\n")
	}
	feed(r, b.String(), 50)
	r.Quiet()
	c.expect(t, 1, 0, 0)
	if got, want := c.blocks[0].Notes, strings.TrimSpace(notes[len("Notes: "):]); got != want {
		t.Fatalf("notes %q, want %q", got, want)
	}
	feed(r, "\x1b[2J\x1b[H"+b.String(), 50) // a clear pushes nothing; the block is printed again
	r.Quiet()
	c.expect(t, 1, 0, 0)
}

func TestScreenSoftWrapJoinsRows(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeScreen, 40, 20))
	defer r.Close()
	long := "Files Modified: internal/protocol/parser.go, internal/protocol/reader.go"
	text := strings.Replace(validBlock, "Files Modified: a.go, b.go", long, 1)
	feed(r, crlf(text), 17) // the terminal auto-wraps the long line
	r.Quiet()
	c.expect(t, 1, 0, 0)
	want := []string{"internal/protocol/parser.go", "internal/protocol/reader.go"}
	if !reflect.DeepEqual(c.blocks[0].FilesModified, want) {
		t.Fatalf("files %q", c.blocks[0].FilesModified)
	}
}

func TestScreenCheckpointComplete(t *testing.T) {
	c := newCollector()
	r := NewReader(testLogger(t), c.options(ModeScreen, 80, 30))
	defer r.Close()
	s := newTUIStream(80, 30)
	s.b.WriteString("\x1b]0;\u2733 CHECKPOINT COMPLETE\x07") // a title is not output
	s.say("I print CHECKPOINT COMPLETE only at the end")
	feed(r, s.take(), 64)
	r.Quiet()
	c.expect(t, 0, 0, 0)
	s.say("⏺ CHECKPOINT COMPLETE")
	for range 5 {
		s.frame("")
	}
	feed(r, s.take(), 64)
	r.Quiet()
	r.Quiet()
	c.expect(t, 0, 0, 1)
	r.Flush()
	c.expect(t, 0, 0, 1)
}
