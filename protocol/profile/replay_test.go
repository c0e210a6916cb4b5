//go:build !e2e

package profile

import (
	"strings"
	"testing"
	"time"
)

// Recorded screens (protocol/testdata/cli-*): what each profile must read
// off them, at the moments the recorder typed.

var recordingNames = []string{"checkpoint-200x50", "checkpoint-80x50", "repeat-200x50", "usage-limit-200x50"}

// TestRecordedReadyBeforeFirstPrompt: right before the first prompt was
// typed the CLI is ready, its box empty, no turn running: a turn boundary.
func TestRecordedReadyBeforeFirstPrompt(t *testing.T) {
	for _, cli := range cliNames {
		for _, name := range recordingNames {
			t.Run(cli+"/"+name, func(t *testing.T) {
				p := mustProfile(t, cli)
				rec := loadRecording(t, cli, name)
				s := rec.screenAt(t, rec.typedAt(t, "You are supervised", 0))
				if !p.Ready(s) || p.Busy(s) || !p.InputEmpty(s) || !p.TurnEnded(s) || !s.Bracketed() {
					t.Fatalf("ready=%v busy=%v empty=%v ended=%v bracketed=%v on\n%s",
						p.Ready(s), p.Busy(s), p.InputEmpty(s), p.TurnEnded(s), s.Bracketed(), s)
				}
			})
		}
	}
}

// TestRecordedTypedTextInBox: after the text was typed and before Enter,
// the box holds it: not empty, so not a turn boundary.
func TestRecordedTypedTextInBox(t *testing.T) {
	for _, cli := range cliNames {
		for _, name := range recordingNames {
			t.Run(cli+"/"+name, func(t *testing.T) {
				p := mustProfile(t, cli)
				rec := loadRecording(t, cli, name)
				for i, ty := range rec.Typed {
					if !strings.HasPrefix(ty.Text, "CHECKPOINT REQUEST") && !strings.HasPrefix(ty.Text, "You are") {
						continue
					}
					s := rec.screenAt(t, rec.Typed[i+1].Offset) // the "\r" write
					if p.InputEmpty(s) || p.TurnEnded(s) || p.Busy(s) {
						t.Fatalf("typed %q: empty=%v ended=%v busy=%v on\n%s", ty.Text[:20], p.InputEmpty(s), p.TurnEnded(s), p.Busy(s), s)
					}
				}
			})
		}
	}
}

// TestRecordedTurns: between Enter and the next write the CLI is busy while
// the answer streams and never busy and at a turn boundary at once; when
// the recorder typed next (the answer was complete), the turn has ended.
func TestRecordedTurns(t *testing.T) {
	for _, cli := range cliNames {
		for _, name := range []string{"checkpoint-200x50", "checkpoint-80x50", "repeat-200x50"} {
			t.Run(cli+"/"+name, func(t *testing.T) {
				t.Parallel() // a replay is CPU alone: two at once on two cores
				p := mustProfile(t, cli)
				rec := loadRecording(t, cli, name)
				rp := rec.replay(t)
				for i := 0; i+2 < len(rec.Typed); i++ {
					ty := rec.Typed[i]
					if !strings.HasPrefix(ty.Text, "CHECKPOINT REQUEST") {
						continue
					}
					from, to := rec.Typed[i+1].Offset, rec.Typed[i+2].Offset
					busyStreaming := 0
					step := max((to-from)/150, 16)
					for off := from + step; off < to; off += step {
						s := rp.to(off)
						if p.Busy(s) && (p.TurnEnded(s) || p.Ready(s)) {
							t.Fatalf("offset %d: busy and ready at once on\n%s", off, s)
						}
						if p.Busy(s) && strings.Contains(s.String(), "Status: implementing") {
							busyStreaming++
						}
					}
					if busyStreaming == 0 {
						t.Errorf("request %d: never busy while the answer streamed", i)
					}
					end := rp.to(to)
					if !p.TurnEnded(end) || p.Busy(end) || !strings.Contains(end.String(), "Estimated Progress: 65%") {
						t.Errorf("after the answer: ended=%v busy=%v on\n%s", p.TurnEnded(end), p.Busy(end), end)
					}
					if _, ok, text := p.UsageLimit(end, time.Now()); ok {
						t.Errorf("usage limit read from a normal answer: %q", text)
					}
				}
			})
		}
	}
}
