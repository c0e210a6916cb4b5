package protocol

import (
	"testing"

	"github.com/hashicorp/go-hclog"
)

// FuzzReader feeds arbitrary bytes to a Reader in both modes, split at an
// arbitrary point, with Typed, Quiet and Flush in between: it must never
// panic or hang, and every block it reports must be valid.
func FuzzReader(f *testing.F) {
	f.Add([]byte(crlf(validBlock)), uint8(7), "CHECKPOINT REQUEST: T1")
	s := newTUIStream(40, 12)
	s.answer(answerLines)
	f.Add([]byte(s.take()), uint8(200), "")
	f.Add([]byte("\x1b]0;\u2733 x\x9c\x07\x1b[3J\x1b[2J\x1b[?1049h\x1b[c\x1b[6n\x1bP+q\x1b\\CHECKPOINT COMPLETE\r\n"), uint8(3), CompleteMarker)
	f.Add([]byte("CHECKPOINT: T1\nStatus: testing\nCompleted:\n\n\nRemaining:\n1. x\n2) y\nFiles Modified: a,\nb\nEstimated Progress: 100%\nNotes: n\n  m\nResume: r\n"), uint8(1), "")
	f.Fuzz(func(t *testing.T, data []byte, split uint8, typed string) {
		for _, mode := range []Mode{ModeLines, ModeScreen} {
			opts := ReaderOptions{Mode: mode, Cols: 40, Rows: 12, ScrollKeep: 50,
				OnBlock: func(b Block) {
					if !validStatus(b.Status) || b.Progress < 0 || b.Progress > 100 || b.Task == "" {
						t.Fatalf("invalid block reported: %+v", b)
					}
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
