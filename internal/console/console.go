// Package console is `warden run`'s output on a terminal: progress lines
// scroll as they come, and the dashboard stays below them as a footer that
// is redrawn in place (cursor up, clear to the end of the screen) instead of
// being printed again and again. Lines written to another stream on the
// same terminal (stderr) go through it too, so they land above the footer
// rather than inside it. When stdout is a file or a pipe warden does not use
// it: the dashboard is then appended like any other lines.
package console

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"
)

// Size reports the terminal's size in columns and rows (0, 0 if unknown).
type Size func() (cols, rows int)

// Console writes to a terminal, keeping a footer below everything else.
type Console struct {
	mu     sync.Mutex
	out    io.Writer
	size   Size
	footer string
	rows   int  // screen rows the footer occupies now (0: not drawn)
	open   bool // the last write ended inside a line: no footer until it ends
}

// New returns a console writing to the terminal out.
func New(out io.Writer, size Size) *Console {
	return &Console{out: out, size: size}
}

// Write writes progress lines above the footer.
func (c *Console) Write(p []byte) (int, error) {
	return c.writeTo(c.out, p)
}

// Beside returns a writer for another stream on the same terminal (stderr):
// what it writes lands above the footer too.
func (c *Console) Beside(w io.Writer) io.Writer {
	return writerFunc(func(p []byte) (int, error) { return c.writeTo(w, p) })
}

// Footer replaces the footer with text (lines ending in '\n'), redrawn in
// place.
func (c *Console) Footer(text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.erase()
	c.footer = text
	c.draw()
}

func (c *Console) writeTo(w io.Writer, p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.erase()
	n, err := w.Write(p)
	if len(p) > 0 {
		c.open = p[len(p)-1] != '\n'
	}
	c.draw()
	return n, err
}

// erase removes the footer: the cursor goes up to its first row, and the
// screen is cleared from there down.
func (c *Console) erase() {
	if c.rows == 0 {
		return
	}
	fmt.Fprintf(c.out, "\x1b[%dA\r\x1b[J", c.rows)
	c.rows = 0
}

// draw writes the footer below the last line, each line cut to the width
// of the terminal (a line that wrapped would take rows erase cannot count)
// and the whole to less than its height.
func (c *Console) draw() {
	if c.footer == "" || c.open {
		return
	}
	lines := strings.Split(strings.TrimSuffix(c.footer, "\n"), "\n")
	cols, height := c.size()
	if height > 2 && len(lines) > height-2 {
		more := len(lines) - (height - 3)
		lines = append(lines[:height-3:height-3], fmt.Sprintf("… %d more lines (warden status shows them all)", more))
	}
	var b strings.Builder
	for _, l := range lines {
		if cols > 1 && ansi.StringWidth(l) > cols-1 {
			l = ansi.Truncate(l, cols-1, "…")
		}
		b.WriteString(l)
		b.WriteString("\n")
	}
	if _, err := io.WriteString(c.out, b.String()); err == nil {
		c.rows = len(lines)
	}
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
