//go:build !e2e

package viewport

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
)

// wideRow is row r of a 200-column screen: its number, then letters, each
// cell telling its column (a to z over again).
func wideRow(r int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "R%02d", r)
	for x := 3; x < 200; x++ {
		b.WriteByte('a' + byte(x%26))
	}
	return b.String()
}

// wideScreen draws 50 such rows, then puts the cursor at (x, y), 0-based.
func wideScreen(x, y int) []byte {
	var b bytes.Buffer
	b.WriteString("\x1b[H\x1b[2J")
	for r := range 50 {
		fmt.Fprintf(&b, "\x1b[%d;1H%s", r+1, wideRow(r))
	}
	fmt.Fprintf(&b, "\x1b[%d;%dH", y+1, x+1)
	return b.Bytes()
}

// seen is what a terminal of size s shows after out: its rows, read
// through warden's terminal emulator.
func seen(t *testing.T, out []byte, s Size) []string {
	t.Helper()
	scr := protocol.NewScreen(hclog.NewNullLogger(), s.Cols, s.Rows, nil)
	defer scr.Close()
	scr.Write(out)
	var rows []string
	for _, r := range scr.Rows() {
		rows = append(rows, r.Text)
	}
	return rows
}

// part is the cells [x, x+cols) of rows [y, y+rows) of the wide screen.
func wantPart(x, y int, s Size) []string {
	var rows []string
	for r := y; r < y+s.Rows; r++ {
		rows = append(rows, wideRow(r)[x:x+s.Cols])
	}
	return rows
}

func sameRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: the viewer shows\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// An 80×24 viewer of a 200×50 program sees its top-left 80×24 while the
// cursor is there, each row cut at column 80 (never wrapped onto the next
// row); the part moves with the cursor, as little as it takes; the queries
// the program makes never reach the viewer.
func TestClippedViewFollowsTheCursor(t *testing.T) {
	small := Size{80, 24}
	var out bytes.Buffer
	v := New(&out, Size{200, 50}, small)
	if !v.Clipped() {
		t.Fatal("an 80x24 view of 200x50 is not clipped")
	}
	v.Write(wideScreen(3, 5))
	v.Write([]byte("\x1b[c\x1b[6n\x1b]11;?\x07"))
	v.Close()
	sameRows(t, "cursor at (3, 5)", seen(t, out.Bytes(), small), wantPart(0, 0, small))
	for _, q := range []string{"\x1b[c", "\x1b[6n", "\x1b]11;?"} {
		if bytes.Contains(out.Bytes(), []byte(q)) {
			t.Errorf("the query %q reached the viewer", q)
		}
	}

	out.Reset()
	v = New(&out, Size{200, 50}, small)
	v.Write(wideScreen(150, 45)) // the part ends at the cursor: columns 71..150, rows 22..45
	v.Close()
	sameRows(t, "cursor at (150, 45)", seen(t, out.Bytes(), small), wantPart(71, 22, small))
	v = New(&out, Size{200, 50}, small)
	out.Reset()
	v.Write(wideScreen(199, 49))
	v.Write([]byte("\x1b[1;1H")) // back to the top-left: the part follows
	v.Close()
	sameRows(t, "cursor back at (0, 0)", seen(t, out.Bytes(), small), wantPart(0, 0, small))
}

// The part is drawn again as the program's output changes it (only the
// rows that changed), with styles kept where a row is cut, and the cursor
// where the program's is, hidden when it hid it.
func TestClippedViewRedrawsWhatChanged(t *testing.T) {
	small := Size{40, 10}
	var out bytes.Buffer
	v := New(&out, Size{200, 50}, small)
	v.Write(wideScreen(0, 0))
	v.Write([]byte("\x1b[3;1H\x1b[2Kthird row, redrawn\x1b[5;30H"))
	v.Close()
	want := wantPart(0, 0, small)
	want[2] = "third row, redrawn"
	sameRows(t, "a row rewritten", seen(t, out.Bytes(), small), want)

	out.Reset()
	v = New(&out, Size{200, 50}, small)
	v.Write([]byte("\x1b[31m" + strings.Repeat("r", 60) + "\x1b[0m\x1b[2;1H\x1b[?25l"))
	v.Close()
	if !bytes.Contains(out.Bytes(), []byte("\x1b[?25l")) {
		t.Errorf("the program hid its cursor, the viewer's was not:\n%q", out.Bytes())
	}
	if !bytes.Contains(out.Bytes(), []byte("31m"+strings.Repeat("r", 40))) {
		t.Errorf("the red row lost its colour or was not cut at 40:\n%q", out.Bytes())
	}
	if bytes.Contains(out.Bytes(), []byte(strings.Repeat("r", 41))) {
		t.Errorf("a row wider than the viewer was drawn whole:\n%q", out.Bytes())
	}
}

// At the program's own size the output passes through as written; a
// viewer resized smaller sees the part at once, and back at the program's
// size the screen as it is, then the output again.
func TestViewPassesThroughAtTheSameSize(t *testing.T) {
	prog := Size{200, 50}
	var out bytes.Buffer
	v := New(&out, prog, prog)
	if v.Clipped() {
		t.Fatal("a view at the program's size is clipped")
	}
	screen := wideScreen(3, 5)
	v.Write(screen)
	if !bytes.Equal(out.Bytes(), screen) {
		t.Fatalf("the output did not pass through: %d bytes of %d", out.Len(), len(screen))
	}
	out.Reset()
	small := Size{80, 24}
	v.Resize(small)
	sameRows(t, "resized to 80x24", seen(t, out.Bytes(), small), wantPart(0, 0, small))
	out.Reset()
	v.Resize(prog)
	v.Write([]byte("\x1b[50;1H\x1b[2Klast row"))
	v.Close()
	got := seen(t, out.Bytes(), prog)
	if got[0] != wideRow(0) || got[49] != "last row" {
		t.Errorf("back at 200x50 the viewer shows %q … %q", got[0], got[49])
	}

	out.Reset()
	v = New(&out, prog, Size{}) // no terminal: everything passes through
	v.Write(screen)
	v.Screen(Size{100, 30}, []byte("drawn"), false)
	v.Close()
	if want := string(screen) + "drawn"; out.String() != want {
		t.Errorf("with no terminal the output changed: %q", out.String())
	}
}

// A new screen (a new session, or the opening of an attach) of another
// size: the emulator starts over at that size; on its alternate screen, the
// viewer's terminal goes there too.
func TestScreenStartsOver(t *testing.T) {
	small := Size{80, 24}
	var out bytes.Buffer
	v := New(&out, small, small)
	v.Write([]byte("old session's text"))
	out.Reset()
	v.Screen(Size{200, 50}, wideScreen(0, 0), true)
	v.Close()
	if !bytes.HasPrefix(out.Bytes(), []byte("\x1b[?1049h")) {
		t.Errorf("the viewer did not go to the alternate screen: %q", out.Bytes()[:min(out.Len(), 40)])
	}
	sameRows(t, "a new 200x50 screen", seen(t, out.Bytes(), small), wantPart(0, 0, small))
}

// A wide character across the viewer's right edge is left out, not
// wrapped: the row keeps to the viewer's width and the next row is its own.
func TestWideCharacterAtTheEdge(t *testing.T) {
	small := Size{80, 24}
	var out bytes.Buffer
	v := New(&out, Size{200, 50}, small)
	v.Write([]byte(strings.Repeat("a", 79) + "界b\r\nsecond row\x1b[1;1H"))
	v.Close()
	got := seen(t, out.Bytes(), small)
	if got[0] != strings.Repeat("a", 79) || got[1] != "second row" {
		t.Errorf("the viewer shows %q, %q", got[0], got[1])
	}
}
