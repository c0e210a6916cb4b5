//go:build !e2e

package protocol

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// A plain program's last lines, without escape codes, blank lines or the
// echo of what warden typed; kept after Flush.
func TestTailLines(t *testing.T) {
	r := NewReader(hclog.NewNullLogger(), ReaderOptions{Mode: ModeLines})
	r.Typed("Your task: T1\nCHECKPOINT REQUEST: T1")
	r.Write([]byte("starting\n\x1b[31mError:\x1b[0m config broken\n\n"))
	r.Write([]byte("Your task: T1\r\n  \r\nhint: see --help"))
	r.Flush()
	want := []string{"starting", "Error: config broken", "hint: see --help"}
	if got := r.Tail(3); !reflect.DeepEqual(got, want) {
		t.Errorf("Tail(3) = %q, want %q", got, want)
	}
	if got := r.Tail(1); !reflect.DeepEqual(got, want[2:]) {
		t.Errorf("Tail(1) = %q", got)
	}
}

// The echo of a long typed prompt (more lines than are kept, lines longer
// than a tail line) after what the program said neither pushes it out nor
// shows up cut.
func TestTailLinesAfterALongEcho(t *testing.T) {
	r := NewReader(hclog.NewNullLogger(), ReaderOptions{Mode: ModeLines})
	var prompt []string
	for i := range 3 * keepLines {
		prompt = append(prompt, strings.Repeat("a rule of the protocol, said at length ", 8)+string(rune('A'+i%26)))
	}
	text := strings.Join(prompt, "\n")
	r.Typed(text)
	r.Write([]byte("Error: config broken\n"))
	r.Write([]byte(strings.ReplaceAll(text, "\n", "\r\n") + "\r\n"))
	r.Flush()
	if got, want := r.Tail(3), []string{"Error: config broken"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Tail(3) = %q, want %q", got, want)
	}
}

// A TUI's last screen as the emulator has it, its frame and control
// characters removed; kept after Flush.
func TestTailScreen(t *testing.T) {
	r := NewReader(hclog.NewNullLogger(), ReaderOptions{Mode: ModeScreen, Rows: 10, Cols: 40})
	r.Write([]byte("\x1b[2J\x1b[Hfirst draft\r\x1b[Kfake-cli 1.0\r\n"))
	r.Write([]byte("╭────────╮\r\n│ Error loading configuration \x07│\r\n╰────────╯\r\n"))
	r.Flush()
	want := []string{"fake-cli 1.0", "Error loading configuration"}
	if got := r.Tail(3); !reflect.DeepEqual(got, want) {
		t.Errorf("Tail(3) = %q, want %q", got, want)
	}
}

// A TUI that worked on its alternate screen and left it on its way out
// (back to the empty main screen) showed what it showed there: its last
// lines are those, not nothing. A program that shows something after it
// left (a goodbye on the main screen) is read from there.
func TestTailScreenAfterTheAltScreenIsLeft(t *testing.T) {
	for _, c := range []struct {
		name, end string
		want      []string
	}{
		{"left in a write of its own", "\x1b[?1049l", []string{"working, tick 2", "working, tick 3"}},
		{"left inside a write", "working, tick 4\r\n\x1b[?2004l\x1b[?1049l\x1b[?25h", []string{"working, tick 3", "working, tick 4"}},
		{"a goodbye after it", "\x1b[?1049lToken usage: 12k\r\n", []string{"Token usage: 12k"}},
	} {
		r := NewReader(hclog.NewNullLogger(), ReaderOptions{Mode: ModeScreen, Rows: 10, Cols: 40})
		r.Write([]byte("\x1b[?1049h\x1b[2J\x1b[H"))
		r.Write([]byte("working, tick 1\r\nworking, tick 2\r\nworking, tick 3\r\n"))
		r.Write([]byte(c.end))
		if got := r.Tail(2); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s, running: Tail(2) = %q, want %q", c.name, got, c.want)
		}
		r.Flush()
		if got := r.Tail(2); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s, ended: Tail(2) = %q, want %q", c.name, got, c.want)
		}
	}
}
