//go:build !e2e

package protocol

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/charmbracelet/x/vt"
)

// If an x/vt upgrade renames what trimEmulator reaches, this fails rather
// than a TUI agent quietly costing megabytes again.
func TestTrimEmulatorTakes(t *testing.T) {
	em := vt.NewEmulator(200, 50)
	e := reflect.ValueOf(em).Elem()
	if !shrinkParserData(e, parserDataSize) {
		t.Error("parser buffer not shrunk")
	}
	if !dropAltScrollback(e) {
		t.Error("alternate screen's scrollback not dropped")
	}
}

// A TUI repainting on the alternate screen (an erase before every frame)
// holds no more after 200 repaints than after the first.
func TestAltScreenRepaintsDoNotGrow(t *testing.T) {
	s := NewScreen(testLogger(t), 200, 50, nil)
	defer s.Close()
	frame := "\x1b[2J\x1b[H" + strings.Repeat(strings.Repeat("x", 199)+"\r\n", 49)
	_, _ = s.Write([]byte("\x1b[?1049h" + frame))
	before := liveHeap()
	for range 200 {
		_, _ = s.Write([]byte(frame))
	}
	if grown := int64(liveHeap()) - int64(before); grown > 1<<20 {
		t.Errorf("heap grew by %d KiB over 200 repaints", grown>>10)
	}
	scrs, _ := screensOf(reflect.ValueOf(s.(*vtScreen).em).Elem())
	if sb := scrs[1].Scrollback(); sb != nil && sb.Len() > 0 {
		t.Errorf("alternate screen's scrollback holds %d lines", sb.Len())
	}
}

// liveHeap is the heap in use after a collection: what is live.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
