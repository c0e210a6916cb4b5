//go:build !e2e

package protocol

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// tuiCorpus is a redraw-heavy TUI stream: answers drawn with cursor moves and
// colours, partial frames, ten full repaints each, spinner titles.
// It returns one chunk per turn: the supervisor calls Quiet after each.
func tuiCorpus(cols, rows int) [][]byte {
	s := newTUIStream(cols, rows)
	var turns [][]byte
	for i := range 20 {
		s.say(fmt.Sprintf("> %s", Request(fmt.Sprintf("T%d", i))))
		s.answer(strings.Split(strings.Replace(validBlock, "65%", fmt.Sprintf("%d%%", i), 1), "\n"))
		turns = append(turns, []byte(s.take()))
	}
	return turns
}

func linesCorpus() []byte {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "\x1b[32mrunning\x1b[0m step %d of the build, compiling package number %d\r\n", i, i)
		if i%20 == 0 {
			b.WriteString(crlf(strings.Replace(validBlock, "65%", fmt.Sprintf("%d%%", i/2), 1) + "\n"))
		}
	}
	return []byte(b.String())
}

// BenchmarkScreenReader: go test -bench=ScreenReader -benchtime=3s ./protocol/
// Throughput of one ModeScreen Reader over a TUI stream in 4 KiB writes, with
// Quiet after every turn and also every 16 KiB (more often than a supervisor).
func BenchmarkScreenReader(b *testing.B) {
	for _, size := range []struct{ cols, rows int }{{120, 40}, {200, 50}} {
		b.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(b *testing.B) {
			turns := tuiCorpus(size.cols, size.rows)
			total := 0
			for _, t := range turns {
				total += len(t)
			}
			b.SetBytes(int64(total))
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				r := NewReader(hclog.NewNullLogger(), ReaderOptions{Mode: ModeScreen, Cols: size.cols, Rows: size.rows,
					OnBlock: func(Block) { n++ }})
				for _, data := range turns {
					for off := 0; off < len(data); off += 4096 {
						_, _ = r.Write(data[off:min(off+4096, len(data))])
						if off%(16<<10) == 0 {
							r.Quiet() // mostly mid-frame: put off
						}
					}
					r.Quiet()
				}
				r.Flush()
				if n != 20 {
					b.Fatalf("%d blocks, want 20", n)
				}
			}
		})
	}
}

// BenchmarkLinesReader: go test -bench=LinesReader -benchtime=3s ./protocol/
func BenchmarkLinesReader(b *testing.B) {
	data := linesCorpus()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		r := NewReader(hclog.NewNullLogger(), ReaderOptions{Mode: ModeLines, OnBlock: func(Block) { n++ }})
		for off := 0; off < len(data); off += 4096 {
			_, _ = r.Write(data[off:min(off+4096, len(data))])
		}
		r.Flush()
		if n != 10 {
			b.Fatalf("%d blocks, want 10", n)
		}
	}
}

// BenchmarkQuiet: the cost of one Quiet on a full 200×50 screen.
func BenchmarkQuiet(b *testing.B) {
	r := NewReader(hclog.NewNullLogger(), ReaderOptions{Mode: ModeScreen, Cols: 200, Rows: 50})
	defer r.Close()
	for _, t := range tuiCorpus(200, 50) {
		_, _ = r.Write(t)
	}
	for b.Loop() {
		r.mu.Lock()
		r.dirty = true
		r.mu.Unlock()
		r.Quiet()
	}
}

// BenchmarkLinesReaderPlain: a plain agent's bulk output as the runner hands
// it over: 100-byte lines (CR LF from the tty) without escape sequences, in
// 4 KiB writes (one pty read each).
func BenchmarkLinesReaderPlain(b *testing.B) {
	data := []byte(strings.Repeat(strings.Repeat("x", 98)+"\r\n", 40<<10))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(hclog.NewNullLogger(), ReaderOptions{Mode: ModeLines})
		for off := 0; off < len(data); off += 4096 {
			_, _ = r.Write(data[off:min(off+4096, len(data))])
		}
		r.Flush()
	}
}

// BenchmarkLinesRejectedFlood: a hostile plain agent's flood of distinct
// rejected blocks of 60 KB each, each followed by a line of warden's own
// preamble — the case where a rejected block is tried as warden's echo cut
// by output (echo_cut.go) at its dearest: what it costs stays bounded by
// what the typed text has left after the block's first word.
func BenchmarkLinesRejectedFlood(b *testing.B) {
	notes := strings.Repeat("x", 60000)
	var sb strings.Builder
	for i := range 20 {
		fmt.Fprintf(&sb, "CHECKPOINT: T1\r\nStatus: <implementing | testing | awaiting-verification | blocked | complete>\r\n"+
			"Completed:\r\n- a%d\r\nRemaining:\r\n- b\r\nFiles Modified: none\r\nEstimated Progress: 250%%\r\nNotes: %s\r\n\r\n"+
			"Status is one of the five words shown; Estimated Progress is a whole number\r\n", i, notes)
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r := NewReader(hclog.NewNullLogger(), ReaderOptions{Mode: ModeLines})
		r.Typed(Preamble(Task{ID: "T1", Title: "x"}))
		for off := 0; off < len(data); off += 4096 {
			_, _ = r.Write(data[off:min(off+4096, len(data))])
		}
		r.Flush()
	}
}
