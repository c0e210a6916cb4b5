//go:build !e2e

package asciicast

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeNow is a clock that moves only when told.
type fakeNow struct{ t time.Time }

func (c *fakeNow) now() time.Time           { return c.t }
func (c *fakeNow) add(d time.Duration)      { c.t = c.t.Add(d) }
func newFakeNow() *fakeNow                  { return &fakeNow{t: time.Unix(1700000000, 0)} }
func lines(b []byte) []string               { return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") }
func writeString(w *Writer, s string) error { _, err := w.Write([]byte(s)); return err }

func TestHeaderEventsAndResizes(t *testing.T) {
	clk := newFakeNow()
	var buf bytes.Buffer
	w, err := NewWriter(testLog, &buf, Options{Cols: 200, Rows: 50, Term: "xterm-256color", Title: "w1 T1", Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	clk.add(500 * time.Millisecond)
	writeString(w, "hello\r\n")
	clk.add(1250 * time.Millisecond)
	w.Resize(120, 40)
	clk.add(time.Second)
	writeString(w, "\x1b[2J\"q\"")
	w.Close()

	got := lines(buf.Bytes())
	var h map[string]any
	if err := json.Unmarshal([]byte(got[0]), &h); err != nil {
		t.Fatal(err)
	}
	env, _ := h["env"].(map[string]any)
	if h["version"] != 2.0 || h["width"] != 200.0 || h["height"] != 50.0 || h["timestamp"] != 1700000000.0 ||
		h["title"] != "w1 T1" || h["idle_time_limit"] != 2.0 || len(env) != 1 || env["TERM"] != "xterm-256color" {
		t.Errorf("header %s", got[0])
	}
	want := []string{
		`[0.500000, "o", "hello\r\n"]`,
		`[1.750000, "r", "120x40"]`,
		`[2.750000, "o", "\u001b[2J\"q\""]`,
	}
	if strings.Join(got[1:], "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got[1:], "\n"), strings.Join(want, "\n"))
	}
}

func TestCapStopsTheRecordingWithANote(t *testing.T) {
	const max = 4096
	note := "\r\n[warden: recording stopped at its size cap]\r\n"
	var buf bytes.Buffer
	w, err := NewWriter(testLog, &buf, Options{Cols: 80, Rows: 24, MaxSize: max, StopNote: note})
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 99) + "\n"
	for range 100 {
		writeString(w, line)
	}
	w.Resize(100, 30)
	w.Close()
	if buf.Len() > max || int64(buf.Len()) != w.Size() {
		t.Fatalf("recording of %d bytes (Size %d), cap %d", buf.Len(), w.Size(), max)
	}
	got := lines(buf.Bytes())
	if last := got[len(got)-1]; !strings.HasSuffix(last, `"\r\n[warden: recording stopped at its size cap]\r\n"]`) {
		t.Fatalf("last event %s", last)
	}
	out := outputOf(t, buf.Bytes())
	if !strings.HasPrefix(out, line+line) || strings.Count(out, line) < 30 {
		t.Errorf("the output before the cap is not kept whole: %d lines", strings.Count(out, line))
	}
}

func TestCreateIsPrivateAndRefusesWhatExists(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	path := filepath.Join(dir, "w1-abc.cast")
	w, err := Create(testLog, path, Options{Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	writeString(w, "hi")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, dir: 0o700 | os.ModeDir} {
		if fi, err := os.Stat(p); err != nil || fi.Mode() != want {
			t.Errorf("%s: %v %v, want %v", p, fi.Mode(), err, want)
		}
	}
	if _, err := Create(testLog, path, Options{Cols: 80, Rows: 24}); !errors.Is(err, os.ErrExist) {
		t.Errorf("an existing recording: %v", err)
	}
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep"), 0o600)
	link := filepath.Join(dir, "w1-def.cast")
	os.Symlink(target, link)
	if _, err := Create(testLog, link, Options{Cols: 80, Rows: 24}); err == nil {
		t.Error("a symbolic link was followed")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
}

// Each event is on disk when Write returns: a player following a live
// session, or a warden killed with SIGKILL, loses nothing already relayed.
// A large chunk is one event, its encoding shared with other recordings.
func TestEachEventIsOnDiskWhenWriteReturns(t *testing.T) {
	dir := t.TempDir()
	a, err := Create(testLog, filepath.Join(dir, "a.cast"), Options{Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Create(testLog, filepath.Join(dir, "b.cast"), Options{Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	big := strings.Repeat("x", 100<<10)
	for i, c := range []struct {
		w        *Writer
		path     string
		in, want string
	}{{a, "a.cast", "first", "first"}, {b, "b.cast", big, big}, {a, "a.cast", "\x1b[0m", `\u001b[0m`}, {b, "b.cast", "second", "second"}} {
		writeString(c.w, c.in)
		got, _ := os.ReadFile(filepath.Join(dir, c.path))
		if !strings.HasSuffix(string(got), `"o", "`+c.want+`"]`+"\n") {
			t.Fatalf("write %d: %s does not end with its event: …%q", i, c.path, got[max(0, len(got)-80):])
		}
	}
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.n++; f.n == 0 {
		return len(p), nil
	}
	return 0, syscall.ENOSPC
}

func TestAFailedWriteStopsTheRecordingNotTheCaller(t *testing.T) {
	fw := &failingWriter{n: -1} // the header's write works
	w, err := NewWriter(testLog, fw, Options{Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("y"), 64<<10)
	for range 3 {
		if n, err := w.Write(big); n != len(big) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if err := w.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Close = %v, want ENOSPC", err)
	}
	if fw.n != 1 {
		t.Errorf("%d writes tried after the failure, want 1 in all", fw.n)
	}
}

func TestReaderEndsAtATornLastLineAndNamesABadOne(t *testing.T) {
	head := `{"version": 2, "width": 80, "height": 24}` + "\n"
	r, _ := NewReader(strings.NewReader(head + `[0.1, "o", "a"]` + "\n" + `[0.2, "o", "b`))
	if ev, err := r.Next(); err != nil || ev.Data != "a" {
		t.Fatalf("%v %v", ev, err)
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("torn last line: %v, want EOF", err)
	}
	r, _ = NewReader(strings.NewReader(head + `[0.1, "o"]` + "\n" + `[0.2, "o", "b"]` + "\n"))
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad event: %v", err)
	}
	for _, bad := range []string{"", `{"version": 1, "width": 80, "height": 24}`, `{"version": 2}`, "nope"} {
		if _, err := NewReader(strings.NewReader(bad + "\n")); err == nil {
			t.Errorf("header %q accepted", bad)
		}
	}
}

// Length reads a recording's last event: from the end of a large file, by
// reading a small one whole.
func TestLength(t *testing.T) {
	for _, n := range []int{3, 3000} { // about 1 KiB and 1.3 MiB
		clk := newFakeNow()
		path := filepath.Join(t.TempDir(), "a.cast")
		w, err := Create(testLog, path, Options{Cols: 80, Rows: 24, Now: clk.now})
		if err != nil {
			t.Fatal(err)
		}
		for range n {
			clk.add(10 * time.Millisecond)
			writeString(w, strings.Repeat("z", 400))
		}
		w.Close()
		if d, err := Length(path); err != nil || d != time.Duration(n)*10*time.Millisecond {
			t.Errorf("%d events: Length = %v, %v; want %v", n, d, err, time.Duration(n)*10*time.Millisecond)
		}
	}
}

// A symbolic link planted at the recordings' directory (logs/ of the state
// dir, while the team runs) is refused, never followed: nothing is created
// where it points.
func TestCreateRefusesALinkedDir(t *testing.T) {
	state := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(state, "logs")); err != nil {
		t.Fatal(err)
	}
	_, err := Create(testLog, filepath.Join(state, "logs", "w1-abc.cast"), Options{Cols: 80, Rows: 24})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a recording under a linked logs/: %v", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("created where the link points: %v", ents)
	}
}
