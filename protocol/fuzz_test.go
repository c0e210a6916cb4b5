package protocol

import (
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
	lines, _ := longSeed("T2")
	s = newTUIStream(80, 40)
	s.answer(lines)
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
