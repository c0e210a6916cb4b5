//go:build !e2e

package webpage

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The newest events of a long events.jsonl, oldest first: at most
// diskEvents, read from its last diskTail bytes (the line cut there left
// out), and no line that is not one JSON object.
func TestLastEventsOfALongLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	var b strings.Builder
	pad := strings.Repeat("x", 900)
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&b, `{"event":"e","n":%d,"pad":"%s"}`+"\n", i, pad)
		if i == 990 {
			b.WriteString("not json\n[1,2]\n")
		}
	}
	os.WriteFile(path, []byte(b.String()), 0o600)
	evs := lastEvents(path)
	if len(evs) != diskEvents {
		t.Fatalf("%d events, want %d", len(evs), diskEvents)
	}
	if !strings.HasPrefix(string(evs[0]), `{"event":"e","n":800,`) || !strings.HasPrefix(string(evs[len(evs)-1]), `{"event":"e","n":999,`) {
		t.Errorf("events %.30s … %.30s, want 800 to 999", evs[0], evs[len(evs)-1])
	}
	os.WriteFile(path, []byte(strings.Repeat("y", diskTail)+b.String()[:2000]), 0o600)
	for _, e := range lastEvents(path) {
		if !strings.HasPrefix(string(e), `{"event"`) {
			t.Errorf("a line cut by the tail's start: %.40s", e)
		}
	}
}
