//go:build !e2e

package session

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/face"
)

// viewerSession is a session with just enough for its tap: a reader.
func viewerSession(mode protocol.Mode) *Session {
	s := &Session{ended: make(chan struct{})}
	s.cfg.Size.Rows, s.cfg.Size.Cols = 10, 40
	s.reader = protocol.NewReader(hclog.NewNullLogger(), protocol.ReaderOptions{Mode: mode, Rows: 10, Cols: 40})
	s.tap.lines = mode == protocol.ModeLines
	return s
}

// A viewer that stops reading is dropped once it is viewerBacklog behind:
// the agent's output never waits for it (the flood ends while the viewer
// still reads nothing), and what was queued for it is bounded by the
// backlog. A viewer that keeps up gets every byte in order.
func TestSlowViewerDroppedNeverWaitedOn(t *testing.T) {
	line := []byte(strings.Repeat("x", 1023) + "\n")
	s := viewerSession(protocol.ModeLines)
	defer s.reader.Close()
	stuck, err := s.Attach()
	if err != nil {
		t.Fatal(err)
	}
	flooded := make(chan struct{})
	go func() {
		defer close(flooded)
		for i := 0; i < 4096; i++ { // 4 MiB
			s.tap.write(line, s.reader)
		}
	}()
	select {
	case <-flooded:
	case <-time.After(time.Minute): // a deadlock, not a timing: a write never blocks
		t.Fatal("the output waited for a viewer that never reads")
	}
	if stuck.End() != face.EndSlow {
		t.Errorf("the viewer that never read: end %q, want %q", stuck.End(), face.EndSlow)
	}
	queued := 0
	for chunk := range stuck.C() { // closed at the drop: what it would have read
		queued += len(chunk)
	}
	if queued > viewerBacklog {
		t.Errorf("%d bytes queued for the viewer that never read, over its backlog of %d", queued, viewerBacklog)
	}

	fast, _ := s.Attach()
	var got bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		for chunk := range fast.C() {
			fast.Taken(chunk)
			got.Write(chunk)
		}
	}()
	for i := 0; i < 256; i++ { // 256 KiB: within the backlog whatever the scheduling
		s.tap.write(line, s.reader)
	}
	s.tap.close()
	<-done
	if fast.End() != face.EndSession || !bytes.Equal(got.Bytes(), bytes.Repeat(line, 256)) {
		t.Errorf("the viewer that read: end %q, %d of %d bytes", fast.End(), got.Len(), 256*len(line))
	}
}

// A viewer sees the screen as it is first (the emulator's rendering), then
// exactly the output that came after.
func TestAttachScreenThenStream(t *testing.T) {
	s := viewerSession(protocol.ModeScreen)
	defer s.reader.Close()
	s.tap.write([]byte("\x1b[2J\x1b[3;5Hhello \x1b[1mbold\x1b[0m"), s.reader)
	v, err := s.Attach()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v.Opening().Screen, "\x1b[3;1H    hello ") || !strings.Contains(v.Opening().Screen, "bold") || v.Opening().Rows != 10 || v.Opening().Cols != 40 {
		t.Errorf("first frame %q (%dx%d)", v.Opening().Screen, v.Opening().Cols, v.Opening().Rows)
	}
	s.tap.write([]byte(" after"), s.reader)
	if chunk := <-v.C(); string(chunk) != " after" {
		t.Errorf("stream: %q", chunk)
	}
	rows, _ := s.Screen()
	if len(rows) != 3 || rows[2] != "    hello bold after" {
		t.Errorf("screen rows %q", rows)
	}
	v.Close()
	if _, ok := <-v.C(); ok || v.End() != face.EndDetached {
		t.Errorf("after Close: end %q", v.End())
	}
	s.tap.close()
	if _, err := s.Attach(); err != ErrEnded {
		t.Errorf("attach after the session: %v", err)
	}
}

// A plain agent's screen is its last lines, escape sequences removed.
func TestPlainScreenIsLastLines(t *testing.T) {
	s := viewerSession(protocol.ModeLines)
	defer s.reader.Close()
	for i := 0; i < 120; i++ {
		s.tap.write([]byte("\x1b[32mline\x1b[0m "+strings.Repeat("•", i%3)+"\r\n"), s.reader)
	}
	s.tap.write([]byte("progress 10%\rprogress 99%"), s.reader)
	rows, _ := s.Screen()
	if len(rows) != PlainScreenLines || rows[len(rows)-1] != "progress 99%" || rows[0] != "line "+strings.Repeat("•", (120-49)%3) {
		t.Errorf("%d rows, first %q, last %q", len(rows), rows[0], rows[len(rows)-1])
	}
}
