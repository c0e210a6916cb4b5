//go:build !e2e

package protocol

import (
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// FuzzReader feeds arbitrary bytes to a Reader in both modes, split at an
// arbitrary point, with Typed, Quiet and Flush in between: it must never
// panic or hang, and every block it reports must be valid, its optional
// lines within their bounds and without placeholders.
func FuzzReader(f *testing.F) {
	f.Add([]byte(crlf(validBlock)), uint8(7), "CHECKPOINT REQUEST: T1")
	s := newTUIStream(40, 12)
	s.answer(answerLines)
	f.Add([]byte(s.take()), uint8(200), "")
	f.Add([]byte("\x1b]0;\u2733 x\x9c\x07\x1b[3J\x1b[2J\x1b[?1049h\x1b[c\x1b[6n\x1bP+q\x1b\\CHECKPOINT COMPLETE\r\n"), uint8(3), CompleteMarker)
	f.Add([]byte("CHECKPOINT: T1\nStatus: testing\nCompleted:\n\n\nRemaining:\n1. x\n2) y\nFiles Modified: a,\nb\nEstimated Progress: 100%\nNotes: n\n  m\nResume: r\n"), uint8(1), "")
	f.Add([]byte(crlf(seedBlock+"\n"+seedChecklist+"\nNotes: a\n  word: b\nSubtasks: [N]/[M]\nTicket: <id>")), uint8(90), "")
	s = newTUIStream(40, 12) // small: the fuzzer minimizes what it finds from it
	s.answer([]string{"CHECKPOINT: T2", "Status: testing", "Phase: x", "Completed:", "Remaining:", "Files Modified: a",
		"Estimated Progress: 1%", "Subtasks:", "[x] a", "Errors: a.go:1: b", "Key: v"})
	f.Add([]byte(s.take()), uint8(120), Request("T2"))
	f.Fuzz(func(t *testing.T, data []byte, split uint8, typed string) {
		for _, mode := range []Mode{ModeLines, ModeScreen} {
			opts := ReaderOptions{Mode: mode, Cols: 40, Rows: 12, ScrollKeep: 50,
				OnBlock: func(b Block) {
					if !validStatus(b.Status) || b.Progress < 0 || b.Progress > 100 || b.Task == "" {
						t.Fatalf("invalid block reported: %+v", b)
					}
					checkOptional(t, b)
				},
				Reply: func([]byte) {},
			}
			r := NewReader(hclog.NewNullLogger(), opts)
			cut := min(int(split), len(data))
			_, _ = r.Write(data[:cut])
			r.Quiet()
			r.Typed(typed)
			_, _ = r.Write(data[cut:])
			r.Quiet()
			r.Flush()
			_ = r.Close()
		}
	})
}

// FuzzParseBlocks parses arbitrary text: every block it yields is valid,
// with its optional lines in bounds and free of placeholders, and the text
// twice, three blank lines apart, yields the same blocks twice — a block
// is read the same wherever it stands.
func FuzzParseBlocks(f *testing.F) {
	f.Add(seedBlock)
	f.Add(strings.Replace(seedBlock, "Subtasks: 19/29", seedChecklist, 1) + "\nNotes: a\n  word: b\nNext steps:\n- x")
	f.Add(validBlock + "\nPhase: <phase>\nSubtasks: [N]/[M]\nTicket: ABC-1\n  wrapped\nErrors:\n- a.go:1:2: x\n- [ ]")
	f.Add("⏺ CHECKPOINT: T1\n  Status: blocked\n  Confidence: high\n  Completed: none\n  Remaining:\n  • x\n" +
		"    Files Modified: none\n    Estimated Progress: 0%\n  Files Created:\n\n  • docs/\n    a.md")
	f.Fuzz(func(t *testing.T, text string) {
		blocks, _ := ParseBlocks(text)
		for _, b := range blocks {
			if !validStatus(b.Status) || b.Progress < 0 || b.Progress > 100 || b.Task == "" {
				t.Fatalf("invalid block: %+v", b)
			}
			checkOptional(t, b)
		}
		twice, _ := ParseBlocks(text + "\n\n\n" + text)
		if len(twice) != 2*len(blocks) {
			t.Fatalf("%d blocks, %d in the text twice", len(blocks), len(twice))
		}
		for i, b := range blocks {
			if twice[i].Key() != b.Key() || twice[len(blocks)+i].Key() != b.Key() {
				t.Fatalf("block %d read otherwise in the text twice:\n%+v\n%+v\n%+v", i, b, twice[i], twice[len(blocks)+i])
			}
		}
	})
}

// checkOptional fails unless block b's optional lines are within their
// bounds and hold no placeholder.
func checkOptional(t *testing.T, b Block) {
	t.Helper()
	if len(b.Extra) > maxExtraKeys {
		t.Fatalf("%d extra keys", len(b.Extra))
	}
	texts := []string{b.Notes, b.Resume, b.Phase, b.CurrentStep}
	for k, v := range b.Extra {
		if _, _, ok := extraKey(k + ": x"); !ok || len(v) > maxExtraValue || v == "" {
			t.Fatalf("extra %q: %q", k, v)
		}
		texts = append(texts, v)
	}
	texts = append(append(texts, b.Blockers...), b.FilesCreated...)
	for _, e := range b.Errors {
		texts = append(texts, e.Message)
	}
	if s := b.Subtasks; s != nil {
		if s.Done < 0 || s.Done > s.Total {
			t.Fatalf("subtasks %+v", s)
		}
		for _, it := range s.Items {
			texts = append(texts, it.Text)
		}
	}
	for _, v := range texts {
		if isPlaceholder(v) {
			t.Fatalf("placeholder %q in an optional line of %+v", v, b)
		}
	}
}
