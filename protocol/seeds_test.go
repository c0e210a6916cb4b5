//go:build !e2e

package protocol

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// seedBlock has every seed line, an unknown line, and wrapped values; its
// Subtasks line is a count (seedChecklist swaps in a checklist).
const seedBlock = `CHECKPOINT: T060
Status: implementing
Phase: design
Current Step: wiring the reader into
  the supervisor
Completed:
- wrote parser
Remaining:
- wire reader
Files Modified: a.go, b.go
Files Created: docs/
  new.md, c.go
Subtasks: 19/29
Errors:
- a.go:12: undefined x
- a.go:12:3: bad
- path/x.go: broken
- build failed
Confidence: high
Estimated Progress: 65%`

const seedChecklist = "Subtasks:\n- [x] parse\n[X] test\n- [ ] wire\n  it up"

// wantSeed is seedBlock read.
func wantSeed() Block {
	b := wantValid
	b.Completed, b.Remaining = []string{"wrote parser"}, []string{"wire reader"}
	b.Phase, b.CurrentStep = "design", "wiring the reader into the supervisor"
	b.FilesCreated = []string{"docs/new.md", "c.go"}
	b.Subtasks = &Subtasks{Done: 19, Total: 29}
	b.Errors = []ErrorItem{{Where: "a.go:12", Message: "undefined x"}, {Where: "a.go:12:3", Message: "bad"},
		{Where: "path/x.go", Message: "broken"}, {Message: "build failed"}}
	b.Extra = map[string]string{"Confidence": "high"}
	return b
}

func parseOne(t *testing.T, text string) Block {
	t.Helper()
	blocks, reasons := ParseBlocks(text)
	if len(blocks) != 1 || len(reasons) != 0 {
		t.Fatalf("got %d blocks %+v, rejections %q", len(blocks), blocks, reasons)
	}
	return blocks[0]
}

// A block with every seed line and a line warden does not know yields one
// record with every field filled, in both forms of Subtasks.
func TestSeedLinesAndAnUnknownLineMakeOneFullRecord(t *testing.T) {
	checklist := wantSeed()
	checklist.Subtasks = &Subtasks{Done: 2, Total: 3, Items: []Subtask{{"parse", true}, {"test", true}, {"wire it up", false}}}
	for _, tc := range []struct {
		name, text string
		want       Block
	}{
		{"count", seedBlock, wantSeed()},
		{"checklist", strings.Replace(seedBlock, "Subtasks: 19/29", seedChecklist, 1), checklist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := parseOne(t, tc.text)
			if !reflect.DeepEqual(b, tc.want) {
				t.Fatalf("got  %+v\nwant %+v", b, tc.want)
			}
			data, err := json.Marshal(b.Record())
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			_ = json.Unmarshal(data, &m)
			for _, k := range []string{"phase", "current_step", "subtasks", "files_created", "errors", "extra"} {
				if v, ok := m[k]; !ok || v == nil {
					t.Errorf("record has no %s: %s", k, data)
				}
			}
		})
	}
}

// Phase: right after Status: used to end the block (an unknown line) and
// have it rejected for its missing lines.
func TestPhaseRightAfterStatusIsAccepted(t *testing.T) {
	text := strings.Replace(validBlock, "Status: implementing\n", "Status: implementing\nPhase: design\n", 1)
	want := wantValid
	want.Phase = "design"
	if b := parseOne(t, text); !reflect.DeepEqual(b, want) {
		t.Fatalf("got %+v", b)
	}
	text = strings.Replace(validBlock, "Status: implementing\n", "Status: implementing\nTicket: ABC-12\n", 1)
	if b := parseOne(t, text); b.Extra["Ticket"] != "ABC-12" || b.Progress != 65 {
		t.Fatalf("got %+v", b)
	}
}

// An unknown line never saves a block a required line is missing from.
func TestUnknownLineAndMissingRequiredLineIsRejected(t *testing.T) {
	text := strings.Replace(validBlock, "Files Modified: a.go, b.go\n", "Confidence: high\n", 1) + "\n\nprose"
	blocks, reasons := ParseBlocks(text)
	if len(blocks) != 0 || len(reasons) != 1 || reasons[0] != "missing Files Modified:" {
		t.Fatalf("blocks %+v, rejections %q", blocks, reasons)
	}
	text = strings.Replace(seedBlock, "Status: implementing\n", "", 1) + "\n\nprose"
	if blocks, reasons = ParseBlocks(text); len(blocks) != 0 || len(reasons) != 1 || reasons[0] != "missing Status:" {
		t.Fatalf("blocks %+v, rejections %q", blocks, reasons)
	}
	// Invalid required values still reject, whatever else the block holds.
	for _, bad := range []string{"Estimated Progress: [N]%", "Estimated Progress: 250%"} {
		if blocks, _ = ParseBlocks(strings.Replace(seedBlock, "Estimated Progress: 65%", bad, 1)); len(blocks) != 0 {
			t.Fatalf("%s: %+v", bad, blocks)
		}
	}
}

// Which lines are extra keys, inside a block that is otherwise complete
// (the line goes after Status:, where no text line continues anything),
// and which end the block there instead.
func TestExtraKeyPattern(t *testing.T) {
	for _, tc := range []struct {
		line      string
		key, val  string // "" key: not an extra line
		endsBlock bool   // not a key, so it ends the block early
	}{
		{"Confidence: high", "Confidence", "high", false},
		{"**Test Results:** 12 passed", "Test Results", "12 passed", false},
		{"⏺ Step 3: write tests", "Step 3", "write tests", false},
		{"confidence: low", "confidence", "low", false}, // nothing to continue after Status:
		{"Reviewed-by_me: yes", "Reviewed-by_me", "yes", false},
		{"Température: 20", "Température", "20", false},
		{"Next steps:", "", "", false}, // empty: dropped, the line still inside
		{"One two three four: x", "One two three four", "x", false},
		{"One two three four five: x", "", "", true},
		{"A key far too long for a key line here: x", "", "", true},
		{"https://example.com/x: y", "", "", true},
		{"Meeting at 12:30 today", "", "", true},
		{"a.go:12: undefined x", "", "", true},
		{"| Key: value | x |", "", "", true},
		{"Two  spaces: x", "", "", true},
		{"3 things: x", "", "", true},
		{"Key (new): x", "", "", true},
		{"Key:value", "", "", true},
		{"Notes:", "", "", false}, // a known key alone
	} {
		t.Run(tc.line, func(t *testing.T) {
			text := strings.Replace(validBlock, "Status: implementing\n", "Status: implementing\n"+tc.line+"\n", 1)
			blocks, reasons := ParseBlocks(text)
			if tc.endsBlock {
				if len(blocks) != 0 || len(reasons) != 1 || !strings.HasPrefix(reasons[0], "missing Completed:") {
					t.Fatalf("want the block ended there; blocks %+v, rejections %q", blocks, reasons)
				}
				return
			}
			if len(blocks) != 1 {
				t.Fatalf("blocks %+v, rejections %q", blocks, reasons)
			}
			want := map[string]string(nil)
			if tc.key != "" {
				want = map[string]string{tc.key: tc.val}
			}
			if !reflect.DeepEqual(blocks[0].Extra, want) {
				t.Fatalf("extra %q, want %q", blocks[0].Extra, want)
			}
		})
	}
}

// A hard-wrapped Notes (or Resume, Phase, extra value) line that happens
// to start with "word: text" continues it; a capitalised key there is a key.
func TestWrappedTextWithAColonStaysText(t *testing.T) {
	b := parseOne(t, validBlock+"\nNotes: the fix touches the\n  parser: now it reads more\nConfidence: high\n  because tests pass\nResume: first\n  run: go test")
	if b.Notes != "the fix touches the parser: now it reads more" || b.Resume != "first run: go test" ||
		!reflect.DeepEqual(b.Extra, map[string]string{"Confidence": "high because tests pass"}) {
		t.Fatalf("got notes %q resume %q extra %q", b.Notes, b.Resume, b.Extra)
	}
	// The same text wrapped elsewhere is the same answer.
	b2 := parseOne(t, validBlock+"\nNotes: the fix touches\n  the parser: now it reads more\nConfidence: high because\n  tests pass\nResume: first run:\n  go test")
	if b2.Key() != b.Key() {
		t.Fatalf("rewrapped: %+v\nvs %+v", b2, b)
	}
}

// A flood of extra lines cannot grow a record without limit.
func TestExtraIsBounded(t *testing.T) {
	var lines []string
	for i := range 3 * maxExtraKeys {
		lines = append(lines, "Key"+itoa(i+1)+": v")
	}
	long := strings.Repeat("é", maxExtraValue) // 2 bytes each
	lines = append(lines, "Key1: second value")
	text := strings.Replace(validBlock, "Status: implementing\n", "Status: implementing\nLong: "+long+"\n  more\n"+strings.Join(lines, "\n")+"\n", 1)
	b := parseOne(t, text)
	if len(b.Extra) != maxExtraKeys {
		t.Fatalf("%d keys, want %d", len(b.Extra), maxExtraKeys)
	}
	if v := b.Extra["Long"]; len(v) > maxExtraValue || len(v) < maxExtraValue-1 || !strings.HasPrefix(long, v) {
		t.Fatalf("long value: %d bytes", len(v))
	}
	if b.Extra["Key1"] != "v" || b.Extra["Key15"] != "v" || b.Extra["Key16"] != "" {
		t.Fatalf("extra %q: want the first value of a repeated key, and the first keys", b.Extra)
	}
}

// A placeholder in an optional line never becomes a value: the value is
// dropped and the block is read without it.
func TestPlaceholdersInOptionalLinesAreDropped(t *testing.T) {
	for _, opt := range []string{"Phase: <phase>", "Current Step: [step]", "Subtasks: [N]/[M]", "Subtasks: N/M",
		"Subtasks: <done>/<total>", "Subtasks:\n- [ ]", "Files Created: <comma-separated paths, or none>",
		"Errors:\n- <error>", "Confidence: <high | low>", "Notes: <one paragraph>", "Resume: [N]",
		"Blockers:\n- <blocker>"} {
		t.Run(opt, func(t *testing.T) {
			b := parseOne(t, validBlock+"\n"+opt)
			if !reflect.DeepEqual(b, wantValid) {
				t.Fatalf("got %+v", b)
			}
		})
	}
	// The preamble's template, with a seed line added as an agent might
	// echo it, is never a record.
	tmpl := Preamble(Task{ID: "T060"})
	tmpl = strings.Replace(tmpl, "Estimated Progress: [N]%", "Phase: <phase>\nSubtasks: [N]/[M]\nEstimated Progress: [N]%", 1)
	if blocks, reasons := ParseBlocks(tmpl); len(blocks) != 0 || len(reasons) != 1 {
		t.Fatalf("template: blocks %+v, rejections %q", blocks, reasons)
	}
}

// A repaint is one key; any other answer in a seed line or an extra value
// is another; a block without them keeps the key it had before they
// existed (computed with the parser of commit 8aab912).
func TestSeedLinesInTheKey(t *testing.T) {
	if k := wantValid.Key(); k != "block:5dfc6b088a349ac8" {
		t.Fatalf("the key of a plain block changed: %s", k)
	}
	b := wantSeed()
	for name, change := range map[string]func(*Block){
		"phase":    func(b *Block) { b.Phase = "build" },
		"step":     func(b *Block) { b.CurrentStep = "x" },
		"subtasks": func(b *Block) { b.Subtasks = &Subtasks{Done: 20, Total: 29} },
		"item":     func(b *Block) { b.Subtasks = &Subtasks{Done: 19, Total: 29, Items: []Subtask{{"a", false}}} },
		"created":  func(b *Block) { b.FilesCreated = []string{"c.go"} },
		"where": func(b *Block) {
			b.Errors = append([]ErrorItem{{Where: "a.go:13", Message: "undefined x"}}, b.Errors[1:]...)
		},
		"extra": func(b *Block) { b.Extra = map[string]string{"Confidence": "low"} },
		"key":   func(b *Block) { b.Extra = map[string]string{"Certainty": "high"} },
	} {
		c := wantSeed()
		change(&c)
		if c.Key() == b.Key() {
			t.Errorf("%s: a different answer has the same key", name)
		}
	}
	if wantSeed().Key() != b.Key() {
		t.Error("equal content, different keys")
	}
}

// No control character in a seed line or an extra line reaches the record.
func TestSeedRecordCarriesNoControlCharacters(t *testing.T) {
	evil := "a\x00b\x1b]0;t\x07c\u009b2J"
	text := validBlock + "\nPhase: " + evil + "\nCurrent Step: " + evil + "\nSubtasks:\n- [x] " + evil +
		"\nFiles Created: " + evil + "\nErrors:\n- a.go:1: " + evil + "\nConfidence: " + evil + "\n"
	cp := parseOne(t, text).Record()
	data, _ := json.Marshal(cp)
	var round Checkpoint
	_ = json.Unmarshal(data, &round)
	fields := []string{round.Phase, round.CurrentStep, round.Subtasks.Items[0].Text, round.FilesCreated[0],
		round.Errors[0].Message, round.Extra["Confidence"]}
	for _, s := range fields {
		for _, r := range s {
			if IsControl(r) {
				t.Errorf("record field %q holds %U", s, r)
			}
		}
		if !strings.Contains(s, "a b") {
			t.Errorf("field %q: the text around the controls is lost", s)
		}
	}
}
