package main

import (
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
)

// firstDrawn replays raw through warden's own screen emulator (the one the
// tests replay recordings with) and returns the first offset in (from, to]
// at which the visible screen shows rows in order, outside a synchronized
// update frame, and that screen. It goes read by read: a CLI draws a frame
// in one write, and a byte offset inside it shows a half-drawn frame (Claude
// writes the dialog, then erases what was below it). A read that came within
// burst of the one before counts as part of the same write.
func firstDrawn(raw []byte, marks []mark, from, to, cols, rows int, want []string) (int, string, bool) {
	const burst = 5 // ms
	to = min(to, len(raw))
	scr := newReplay(raw, cols, rows)
	defer scr.close()
	scr.feed(from)
	for i, m := range marks {
		if m.Offset <= from {
			continue
		}
		if m.Offset > to {
			break
		}
		if i+1 < len(marks) && marks[i+1].Offset <= to && marks[i+1].AtMS-m.AtMS <= burst {
			continue
		}
		scr.feed(m.Offset)
		if scr.drawn(want) {
			return m.Offset, scr.text(), true
		}
	}
	return 0, "", false
}

// replay is a protocol.Screen fed from a capture up to a growing offset.
type replay struct {
	raw []byte
	scr protocol.Screen
	at  int
}

func newReplay(raw []byte, cols, rows int) *replay {
	return &replay{raw: raw, scr: protocol.NewScreen(hclog.NewNullLogger(), cols, rows, nil)}
}

func (r *replay) feed(to int) {
	for r.at < to {
		n := min(4096, to-r.at)
		_, _ = r.scr.Write(r.raw[r.at : r.at+n])
		r.at += n
	}
}

func (r *replay) drawn(want []string) bool {
	if in, _ := r.scr.InFrame(); in {
		return false
	}
	return inOrder(r.text(), want)
}

func (r *replay) text() string {
	var sb strings.Builder
	for _, row := range r.scr.Rows() {
		sb.WriteString(row.Text)
		sb.WriteByte('\n')
	}
	return sb.String()
}

func (r *replay) close() { _ = r.scr.Close() }
