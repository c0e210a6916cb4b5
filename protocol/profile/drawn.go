package profile

import (
	"context"
	"time"
)

// What Submit reads of a CLI that may not be drawing at all (Gemini CLI
// initializing on a loaded machine): how much output the screen holds, and
// the CLI's own notice that it queued a prompt.

// queuedNotices counts the rows that say the CLI queued a prompt.
func (p *Profile) queuedNotices(rows []string) (n int) {
	if p.tui.queued == nil {
		return 0
	}
	for _, r := range rows {
		if p.tui.queued.MatchString(r) {
			n++
		}
	}
	return n
}

// frozenWait bounds how long Submit waits for a CLI that draws nothing
// after a text was typed before it judges what became of the text.
const frozenWait = 30 * time.Second

// untilDrawn polls the screen for up to d until it holds output read after
// mark.
func (p *Profile) untilDrawn(ctx context.Context, screen func() Screen, mark uint64, d time.Duration) error {
	_, err := p.pollUntil(ctx, d, func() bool { return drawnSince(screen(), mark) })
	return err
}

// Drawer is a Screen that says how much of the CLI's output had been read
// when it was taken (bytes, ever growing): a screen with more was drawn
// later.
type Drawer interface {
	Drawn() uint64
}

// drawnSince reports whether s holds output read after mark; without a
// count it says yes (nothing is waited for).
func drawnSince(s Screen, mark uint64) bool {
	d, ok := s.(Drawer)
	return !ok || d.Drawn() > mark
}

func drawnMark(s Screen) uint64 {
	if d, ok := s.(Drawer); ok {
		return d.Drawn()
	}
	return 0
}
