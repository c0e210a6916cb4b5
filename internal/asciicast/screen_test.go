//go:build !e2e

package asciicast

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/wardenhq/warden/protocol"
)

// ScreenOf replays a recording's output and resizes into a fresh emulator of
// the header's size and returns its rows.
func screenOf(t *testing.T, cast []byte) []string {
	t.Helper()
	r, err := NewReader(bytes.NewReader(cast))
	if err != nil {
		t.Fatal(err)
	}
	scr := protocol.NewScreen(testLog, r.Header.Width, r.Header.Height, nil)
	defer scr.Close()
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Code {
		case Output:
			scr.Write([]byte(ev.Data))
		case Resize:
			cols, rows, err := ev.Size()
			if err != nil {
				t.Fatal(err)
			}
			scr.Resize(cols, rows)
		}
	}
	return rowsOf(scr)
}

func rowsOf(scr protocol.Screen) []string {
	var out []string
	for _, r := range scr.Rows() {
		out = append(out, r.Text)
	}
	return out
}

// The real CLIs' streams, cut at random and recorded with a resize in the
// middle, replay to the screen an emulator shows when fed them directly.
func TestRealCLIStreamsReplayToTheSameScreen(t *testing.T) {
	for i, path := range cliStreams {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		live := protocol.NewScreen(testLog, 200, 50, nil)
		var buf bytes.Buffer
		w, err := NewWriter(testLog, &buf, Options{Cols: 200, Rows: 50})
		if err != nil {
			t.Fatal(err)
		}
		chunks := chunked(raw, uint64(i))
		for j, c := range chunks {
			if j == len(chunks)/2 {
				live.Resize(220, 60) // larger: x/vt panics on a smaller one (see the report)
				w.Resize(220, 60)
			}
			live.Write(c)
			w.Write(c)
		}
		w.Close()
		want := rowsOf(live)
		live.Close()
		if got := screenOf(t, buf.Bytes()); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: the replayed screen differs\n got: %q\nwant: %q", path, got, want)
		}
		if got := outputOf(t, buf.Bytes()); got != string(raw) {
			t.Errorf("%s: the recorded output differs from the stream", path)
		}
	}
}
