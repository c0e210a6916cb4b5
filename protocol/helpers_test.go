package protocol

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// collector records what a Reader reports.
type collector struct {
	mu        sync.Mutex
	blocks    []Block
	rejects   []string
	completes int
	replies   []byte
	notify    chan struct{}
}

func newCollector() *collector { return &collector{notify: make(chan struct{}, 100)} }

func (c *collector) options(mode Mode, cols, rows int) ReaderOptions {
	return ReaderOptions{
		Mode: mode, Cols: cols, Rows: rows,
		OnBlock: func(b Block) {
			c.mu.Lock()
			c.blocks = append(c.blocks, b)
			c.mu.Unlock()
			c.notify <- struct{}{}
		},
		OnReject: func(reason, text string) {
			c.mu.Lock()
			c.rejects = append(c.rejects, reason+" | "+text)
			c.mu.Unlock()
		},
		OnComplete: func() {
			c.mu.Lock()
			c.completes++
			c.mu.Unlock()
		},
		Reply: func(p []byte) {
			c.mu.Lock()
			c.replies = append(c.replies, p...)
			c.mu.Unlock()
		},
	}
}

func (c *collector) counts() (blocks, rejects, completes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.blocks), len(c.rejects), c.completes
}

// expect fails unless exactly the given numbers were reported.
func (c *collector) expect(t *testing.T, blocks, rejects, completes int) {
	t.Helper()
	b, r, k := c.counts()
	if b != blocks || r != rejects || k != completes {
		c.mu.Lock()
		defer c.mu.Unlock()
		t.Fatalf("got %d blocks, %d rejects, %d completes; want %d, %d, %d\nblocks: %+v\nrejects: %q",
			b, r, k, blocks, rejects, completes, c.blocks, c.rejects)
	}
}

func testLogger(t testing.TB) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: t.Name(), Level: hclog.Warn, Output: os.Stderr})
}

// feed writes s to r in chunks of n bytes, the way a pty read loop would.
func feed(r *Reader, s string, n int) {
	for len(s) > 0 {
		k := min(n, len(s))
		_, _ = r.Write([]byte(s[:k]))
		s = s[k:]
	}
}

// tuiStream builds the bytes a redraw-heavy TUI sends: alternate screen, a
// transcript area, a composer box, words placed with cursor moves (CHA) in
// colour, a spinner in the title (OSC 0 with ✳), every answer line drawn half
// first, and the whole screen repainted after each step.
type tuiStream struct {
	b          strings.Builder
	rows, cols int
	transcript []string
}

func newTUIStream(cols, rows int) *tuiStream {
	s := &tuiStream{rows: rows, cols: cols}
	s.b.WriteString("\x1b[?1049h\x1b[c\x1b]0;\u2733 Claude Code\x07\x1b[2J")
	return s
}

func (s *tuiStream) frame(status string) {
	b := &s.b
	b.WriteString("\x1b[?2026h\x1b]0;\u2733 " + status + "\x07")
	top := s.rows - 4
	view := s.transcript
	if len(view) > top-1 {
		view = view[len(view)-(top-1):]
	}
	fmt.Fprintf(b, "\x1b[1;1H\x1b[2K\x1b[1mfake\x1b[0m %s", status)
	for i := range top - 1 {
		fmt.Fprintf(b, "\x1b[%d;1H\x1b[2K", i+2)
		if i < len(view) {
			col := 1
			for j, w := range strings.Split(view[i], " ") {
				if j > 0 {
					col++
					if w != "" {
						fmt.Fprintf(b, "\x1b[%dG", col)
					}
				}
				fmt.Fprintf(b, "\x1b[38;2;255;%d;255m%s\x1b[39m", 100+j%100, w)
				col += len([]rune(w))
			}
		}
	}
	bar := strings.Repeat("─", s.cols-2)
	fmt.Fprintf(b, "\x1b[%d;1H╭%s╮\x1b[%d;1H│ > \x1b[%dG│\x1b[%d;1H╰%s╯", s.rows-2, bar, s.rows-1, s.cols, s.rows, bar)
	b.WriteString("\x1b[?2026l")
}

// answer draws block lines (with a reply marker and Codex-style bullets),
// each half first, then repaints the screen ten times.
func (s *tuiStream) answer(lines []string) {
	s.transcript = append(s.transcript, "")
	for i, l := range lines {
		p := "  "
		if i == 0 {
			p = "⏺ "
		}
		l = p + strings.Replace(l, "- ", "• ", 1)
		r := []rune(l)
		s.transcript = append(s.transcript, string(r[:len(r)/2]))
		s.frame("⠸ Thinking")
		s.transcript[len(s.transcript)-1] = l
		s.frame("⠼ Thinking")
	}
	for range 10 {
		s.frame("")
	}
}

func (s *tuiStream) say(l string) {
	s.transcript = append(s.transcript, "", l)
	s.frame("")
}

func (s *tuiStream) take() string {
	out := s.b.String()
	s.b.Reset()
	return out
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// wrap80 hard-wraps at 76 columns with a hanging indent, as the CLIs do.
func wrap80(s string) []string {
	var out []string
	for len(s) > 76 {
		cut := strings.LastIndex(s[:76], " ")
		if cut <= 4 {
			cut = 76
		}
		out = append(out, s[:cut])
		s = "    " + strings.TrimLeft(s[cut:], " ")
	}
	return append(out, s)
}

// longSeed is a block with every seed line and an unknown one, its values
// long enough to be hard-wrapped at 80 columns, and the block it is.
func longSeed(task string) ([]string, Block) {
	lines := []string{
		"CHECKPOINT: " + task,
		"Status: implementing",
		"Phase: design",
		"Current Step: wiring the lenient checkpoint parser into the reader, so that every seed line reaches the record",
		"Completed:",
		"- wrote the parser for the seeds' optional lines, with a table of tests for each form",
		"Remaining:",
		"- wire the reader",
		"Files Modified: protocol/parser.go, protocol/parser_fields.go, protocol/lineclass.go, protocol/block.go",
		"Files Created: protocol/extra.go, protocol/seeds.go, protocol/seeds_test.go, docs/protocol/lenient-blocks.md",
		"Subtasks:",
		"- [x] classify the seed lines and every other key line that a model may add to its block",
		"- [ ] amend records with late lines",
		"Errors:",
		"- protocol/parser.go:120:7: undefined: extraKey, which the parser needs to read the lines it does not know",
		"- go vet reports nothing",
		"Confidence: high, since every recorded session of the real agent CLIs still parses to the same records",
		"Estimated Progress: 65%",
		"Notes: the hard wraps of a TUI at eighty columns must not change what the record holds, nor how many records",
	}
	want := Block{Task: task, Status: "implementing", Phase: "design",
		CurrentStep:   "wiring the lenient checkpoint parser into the reader, so that every seed line reaches the record",
		Completed:     []string{"wrote the parser for the seeds' optional lines, with a table of tests for each form"},
		Remaining:     []string{"wire the reader"},
		FilesModified: []string{"protocol/parser.go", "protocol/parser_fields.go", "protocol/lineclass.go", "protocol/block.go"},
		FilesCreated:  []string{"protocol/extra.go", "protocol/seeds.go", "protocol/seeds_test.go", "docs/protocol/lenient-blocks.md"},
		Subtasks: &Subtasks{Done: 1, Total: 2, Items: []Subtask{
			{"classify the seed lines and every other key line that a model may add to its block", true},
			{"amend records with late lines", false}}},
		Errors: []ErrorItem{{Where: "protocol/parser.go:120:7",
			Message: "undefined: extraKey, which the parser needs to read the lines it does not know"},
			{Message: "go vet reports nothing"}},
		Extra:    map[string]string{"Confidence": "high, since every recorded session of the real agent CLIs still parses to the same records"},
		Progress: 65,
		Notes:    "the hard wraps of a TUI at eighty columns must not change what the record holds, nor how many records",
	}
	var wrapped []string
	for _, l := range lines {
		wrapped = append(wrapped, wrap80(l)...)
	}
	return wrapped, want
}

// sameContent compares what the Reader reported with want, Reader fields aside.
func sameContent(t *testing.T, got, want Block) {
	t.Helper()
	got.Epoch, got.Amends = 0, false
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}
