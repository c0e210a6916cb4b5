//go:build !e2e

package protocol

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// The lines path reads runs of text and whole lines at a time and skips
// lines that cannot matter. refLines is the byte-at-a-time reading it
// replaced (every escape sequence stripped, every line classified), kept
// here to check that the two report the same events for any input and any
// split into writes.

type refLines struct {
	r     *Reader
	state escState
	cur   []byte
	cut   int // bytes of the line dropped past maxLine
	cr    bool
}

func (f *refLines) write(p []byte) {
	f.r.mu.Lock()
	for _, b := range p {
		switch f.state {
		case stGround:
			if b == 0x1b {
				f.state = stEsc
				continue
			}
			f.byte(b)
		case stEsc:
			switch {
			case b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_':
				f.state = stString
			case b == 0x1b:
			case b == '[':
				f.state = stCSI
			case b >= 0x20 && b <= 0x2f:
				f.state = stEscInter
			default:
				f.state = stGround
			}
		case stEscInter, stCSI:
			switch {
			case b == 0x1b:
				f.state = stEsc
			case f.state == stEscInter && (b < 0x20 || b > 0x2f):
				f.state = stGround
			case f.state == stCSI && b >= 0x40:
				f.state = stGround
			}
		case stString:
			switch b {
			case 0x07, 0x18, 0x1a:
				f.state = stGround
			case 0x1b:
				f.state = stStringEsc
			}
		case stStringEsc:
			switch b {
			case '\\':
				f.state = stGround
			case 0x1b:
			default:
				f.state = stString
			}
		}
	}
	f.r.unlockAndDispatch()
}

func (f *refLines) byte(b byte) {
	switch {
	case b == '\n':
		text := string(f.cur)
		l := classify(text)
		f.r.settle(text)
		if f.cut > 0 {
			f.r.parser.cut = len(f.cur) + f.cut
		}
		f.cur, f.cr, f.cut = f.cur[:0], false, 0
		if l.kind == kindText && l.text == CompleteMarker {
			f.r.complete(1)
		}
		f.r.parser.feed(l)
		f.r.handleAll(f.r.parser.take())
		f.r.settle(text)
	case b == '\r':
		f.cr = true
	case b == '\b':
		if len(f.cur) > 0 {
			f.cur = f.cur[:len(f.cur)-1]
		}
	case b == '\t' || b >= 0x20:
		if f.cr {
			f.cur, f.cr, f.cut = f.cur[:0], false, 0
		}
		if b == '\t' {
			b = ' '
		}
		if len(f.cur) < maxLine {
			f.cur = append(f.cur, b)
		} else {
			f.cut++
		}
	}
}

// refPieces are the bits random streams are made of: text, the protocol's
// lines, markup, control bytes and escape sequences cut anywhere.
var refPieces = append(strings.Split(validBlock, "\n"),
	CompleteMarker, "**CHECK**POINT COMPLETE", "**CHECKPOINT:** T9", "⏺ CHECKPOINT: T7", "Status: testing",
	"- an item", "Estimated Progress: 40%", "plain text that matters to nobody", "x", "",
	"\r\n", "\n", "\r", "\b", "\t", "\x00", "\x07", "\x1b", "\x1b[", "\x1b[32m", "\x1b[0m", "\x1b[2K",
	"\x1b]0;title\x07", "\x1b]0;t\x1b\\", "\x1bP+q\x1b\\", "\x1b(B", "\x1b[?2026h", "\x1b[?2026l", "\x7f", "é")

func TestLinesMatchByteAtATimeReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for run := range 400 {
		var b strings.Builder
		for range 1 + rng.IntN(300) {
			b.WriteString(refPieces[rng.IntN(len(refPieces))])
			if rng.IntN(3) == 0 {
				b.WriteString("\r\n")
			}
		}
		if run%50 == 0 { // a line longer than maxLine
			b.WriteString(strings.Repeat("CHECKPOINT: T1 ", maxLine/8) + "\r\n")
		}
		data := []byte(b.String())
		var splits []int
		for range rng.IntN(20) {
			splits = append(splits, rng.IntN(len(data)+1))
		}
		got, want := linesEvents(data, splits, false), linesEvents(data, splits, true)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("run %d: events differ\n got: %q\nwant: %q\ninput: %q", run, got, want, data)
		}
	}
}

// linesEvents feeds data to a ModeLines Reader (or the reference), cut at
// splits, then flushes; it returns the events in order.
func linesEvents(data []byte, splits []int, ref bool) []string {
	var ev []string
	r := NewReader(hclog.NewNullLogger(), ReaderOptions{Mode: ModeLines,
		OnBlock:    func(b Block) { ev = append(ev, fmt.Sprintf("block %+v", b)) },
		OnReject:   func(reason, text string) { ev = append(ev, "reject "+reason+": "+text) },
		OnComplete: func() { ev = append(ev, "complete") },
	})
	f := &refLines{r: r}
	slices.Sort(splits)
	prev := 0
	for _, s := range append(splits, len(data)) {
		if s > prev {
			if ref {
				f.write(data[prev:s])
			} else {
				_, _ = r.Write(data[prev:s])
			}
			prev = s
		}
	}
	if !ref {
		r.Flush()
		return ev
	}
	r.mu.Lock() // Flush, reading the last line the reference's way
	if len(f.cur) > 0 {
		f.byte('\n')
	}
	r.parser.flush()
	r.handleAll(r.parser.take())
	r.release()
	r.close()
	r.unlockAndDispatch()
	return ev
}

// FuzzLinesMatchReference: go test -fuzz LinesMatchReference ./protocol/
func FuzzLinesMatchReference(f *testing.F) {
	f.Add([]byte(crlf(validBlock)+"**CHECK**POINT COMPLETE\r\n"), uint16(7), uint16(300))
	f.Add([]byte("a\rb\bc\td\x1b[2K\x1b]0;x\x07e\r\n\r\nCHECKPOINT COMPLETE\n"), uint16(1), uint16(2))
	f.Fuzz(func(t *testing.T, data []byte, s1, s2 uint16) {
		splits := []int{int(s1) % (len(data) + 1), int(s2) % (len(data) + 1)}
		got, want := linesEvents(data, splits, false), linesEvents(data, splits, true)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("events differ\n got: %q\nwant: %q", got, want)
		}
	})
}
