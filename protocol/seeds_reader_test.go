package protocol

import (
	"bufio"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/internal/fakeagent"
)

// longSeed is a block with every seed line and an unknown one, its values
// long enough to be hard-wrapped at 80 columns, and the block it is.
func longSeed(task string) ([]string, Block) {
	lines := []string{
		"CHECKPOINT: " + task,
		"Status: implementing",
		"Phase: design",
		"Current Step: wiring the lenient checkpoint parser into the reader, so that every seed line reaches the record",
		"Completed:",
		"- wrote the parser for the seeds' optional lines, with a table of tests for each form",
		"Remaining:",
		"- wire the reader",
		"Files Modified: protocol/parser.go, protocol/parser_fields.go, protocol/lineclass.go, protocol/block.go",
		"Files Created: protocol/extra.go, protocol/seeds.go, protocol/seeds_test.go, docs/protocol/lenient-blocks.md",
		"Subtasks:",
		"- [x] classify the seed lines and every other key line that a model may add to its block",
		"- [ ] amend records with late lines",
		"Errors:",
		"- protocol/parser.go:120:7: undefined: extraKey, which the parser needs to read the lines it does not know",
		"- go vet reports nothing",
		"Confidence: high, since every recorded session of the real agent CLIs still parses to the same records",
		"Estimated Progress: 65%",
		"Notes: the hard wraps of a TUI at eighty columns must not change what the record holds, nor how many records",
	}
	want := Block{Task: task, Status: "implementing", Phase: "design",
		CurrentStep:   "wiring the lenient checkpoint parser into the reader, so that every seed line reaches the record",
		Completed:     []string{"wrote the parser for the seeds' optional lines, with a table of tests for each form"},
		Remaining:     []string{"wire the reader"},
		FilesModified: []string{"protocol/parser.go", "protocol/parser_fields.go", "protocol/lineclass.go", "protocol/block.go"},
		FilesCreated:  []string{"protocol/extra.go", "protocol/seeds.go", "protocol/seeds_test.go", "docs/protocol/lenient-blocks.md"},
		Subtasks: &Subtasks{Done: 1, Total: 2, Items: []Subtask{
			{"classify the seed lines and every other key line that a model may add to its block", true},
			{"amend records with late lines", false}}},
		Errors: []ErrorItem{{Where: "protocol/parser.go:120:7",
			Message: "undefined: extraKey, which the parser needs to read the lines it does not know"},
			{Message: "go vet reports nothing"}},
		Extra:    map[string]string{"Confidence": "high, since every recorded session of the real agent CLIs still parses to the same records"},
		Progress: 65,
		Notes:    "the hard wraps of a TUI at eighty columns must not change what the record holds, nor how many records",
	}
	var wrapped []string
	for _, l := range lines {
		wrapped = append(wrapped, wrap80(l)...)
	}
	return wrapped, want
}

// sameContent compares what the Reader reported with want, Reader fields aside.
func sameContent(t *testing.T, got, want Block) {
	t.Helper()
	got.Epoch, got.Amends = 0, false
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

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

func init() { fakeagent.Register("seeds", modeSeeds) }

// seeds: a TUI (alternate screen, no tty echo, a composer box, words placed
// with cursor moves in colour, each answer line drawn half first, ten
// repaints) that answers each CHECKPOINT REQUEST with longSeed hard-wrapped
// at 80 columns, and then repaints its screen five more times, a pause
// apart; it leaves on "quit".
func modeSeeds([]string) int {
	if old, err := unix.IoctlGetTermios(0, unix.TCGETS); err == nil {
		quiet := *old
		quiet.Lflag &^= unix.ECHO
		_ = unix.IoctlSetTermios(0, unix.TCSETS, &quiet)
		defer func() { _ = unix.IoctlSetTermios(0, unix.TCSETS, old) }()
	}
	s := newTUIStream(80, 50)
	s.say("ready")
	out := func() { _, _ = os.Stdout.WriteString(s.take()) }
	out()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		line := in.Text()
		if i := strings.Index(line, RequestPrefix); i >= 0 { // after any terminal reply read as input
			line = line[i:]
		}
		if strings.HasSuffix(strings.TrimSpace(line), "quit") { // after any terminal reply too
			_, _ = os.Stdout.WriteString("\x1b[?1049l")
			return 0
		}
		task, ok := RequestTask(line)
		if !ok {
			continue
		}
		s.transcript = append(s.transcript, wrap80("> "+line)...)
		lines, _ := longSeed(task)
		s.answer(lines)
		out()
		for range 5 {
			time.Sleep(150 * time.Millisecond)
			s.frame("")
			out()
		}
	}
	return 0
}

// A real agent under a real pty, 80 columns wide, answers with the seed
// block hard-wrapped and repainted: one record with every field.
func TestPtySeedBlockIsOneRecord(t *testing.T) {
	s := startAgent(t, "seeds", ModeScreen)
	_, want := longSeed("T7")
	s.typeLine(Request("T7"))
	s.waitBlocks(1)
	time.Sleep(time.Second) // the five repaints, each read at its pause
	rows := s.r.Rows()
	s.finish()
	s.c.expect(t, 1, 0, 0)
	if b := s.c.blocks[0]; b.Amends {
		t.Errorf("the record is an amendment: %+v", b)
	}
	if !reflect.DeepEqual(s.c.blocks[0].Extra, want.Extra) {
		t.Errorf("screen:\n%s", strings.Join(rows, "\n"))
	}
	sameContent(t, s.c.blocks[0], want)
}
