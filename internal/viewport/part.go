package viewport

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/wardenhq/warden/protocol"
)

// What the view writes to the viewer's terminal besides the rows.
const (
	autowrapOff = "\x1b[?7l" // a row one cell too wide (a wide character at the edge) is cut by the terminal too
	autowrapOn  = "\x1b[?7h"
	clearScreen = "\x1b[0m\x1b[H\x1b[2J"
	endLink     = "\x1b]8;;\x1b\\"
)

func altSwitch(on bool) string {
	if on {
		return "\x1b[?1049h"
	}
	return "\x1b[?1049l"
}

// part is the part of the program's screen the viewer is shown, and what
// the viewer's terminal shows of it now.
type part struct {
	x, y   int      // its top-left cell on the program's screen
	drawn  []string // the viewer's rows as drawn; nil: the terminal is to be cleared first
	cursor string   // the cursor as last placed
	alt    bool     // the viewer's terminal is on its alternate screen
}

// reset has the next draw start from a cleared terminal, at the top-left.
func (p *part) reset() {
	p.x, p.y, p.drawn, p.cursor = 0, 0, nil, ""
}

// follow moves the part as little as it takes to show the cursor, inside
// the program's screen.
func (p *part) follow(cur protocol.Cursor, prog, viewer Size) {
	p.x = follow1(p.x, cur.X, viewer.Cols, prog.Cols)
	p.y = follow1(p.y, cur.Y, viewer.Rows, prog.Rows)
}

// follow1 is follow along one axis: the offset that shows at within span
// cells, of total.
func follow1(off, at, span, total int) int {
	switch {
	case at < off:
		off = at
	case at >= off+span:
		off = at - span + 1
	}
	return max(0, min(off, total-span))
}

// draw returns what brings the viewer's terminal to the part of rows it is
// shown now, on the same screen (main or alternate) as the program: the
// rows that changed, each cut at the viewer's edges, and the cursor.
func (p *part) draw(rows []string, cur protocol.Cursor, alt bool, prog, viewer Size) []byte {
	var b strings.Builder
	if alt != p.alt {
		b.WriteString(altSwitch(alt))
		p.alt, p.drawn = alt, nil
	}
	x, y := p.x, p.y
	p.follow(cur, prog, viewer)
	if p.drawn == nil || x != p.x || y != p.y {
		b.WriteString(autowrapOff + clearScreen)
		p.drawn = make([]string, viewer.Rows)
	}
	moved := b.Len() > 0
	for i := range viewer.Rows {
		line := ""
		if src := p.y + i; src < prog.Rows && src < len(rows) {
			line = ansi.Cut(rows[src], p.x, p.x+viewer.Cols)
			if strings.Contains(line, "\x1b]8;") {
				line += endLink
			}
		}
		if line == p.drawn[i] {
			continue
		}
		fmt.Fprintf(&b, "\x1b[%d;1H\x1b[0m\x1b[2K%s\x1b[0m", i+1, line)
		p.drawn[i] = line
		moved = true
	}
	cursor := "\x1b[?25l"
	if !cur.Hidden {
		cursor = fmt.Sprintf("\x1b[%d;%dH\x1b[?25h", cur.Y-p.y+1, cur.X-p.x+1)
	}
	if moved || cursor != p.cursor {
		b.WriteString(cursor)
		p.cursor = cursor
	}
	return []byte(b.String())
}

// note returns what writes text on the viewer's last row, over the view
// (the next draw of that row draws it again).
func (p *part) note(viewer Size, text string) string {
	if p.drawn != nil && viewer.Rows > 0 {
		p.drawn[viewer.Rows-1] = "\x00" // no row is this: drawn again next time
	}
	p.cursor = ""
	return fmt.Sprintf("\x1b[%d;1H\x1b[0m\x1b[2K%s\x1b[?25h", max(viewer.Rows, 1), ansi.Truncate(text, max(viewer.Cols-1, 1), "…"))
}

// leave returns what leaves the viewer's cursor at the start of the last
// row the view drew, shown, with autowrap back on.
func (p *part) leave(viewer, prog Size) string {
	last := max(min(viewer.Rows, prog.Rows-p.y), 1)
	return fmt.Sprintf("\x1b[0m\x1b[%d;1H\x1b[?25h%s", last, autowrapOn)
}
