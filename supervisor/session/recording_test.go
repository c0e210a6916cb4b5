//go:build e2e

package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/wardenhq/warden/internal/asciicast"
	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/runner"
)

// recorded gives cfg a log and a recording in a temp dir; it returns the
// logs dir.
func recorded(t *testing.T, cfg *Config) string {
	dir := filepath.Join(t.TempDir(), "logs")
	cfg.LogPath = filepath.Join(dir, cfg.Agent+".log")
	cfg.CastPath = func(id string) string { return filepath.Join(dir, cfg.Agent+"-"+id+".cast") }
	return dir
}

// castOf reads the one recording in dir.
func castOf(t *testing.T, dir string) (path string, cast []byte) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.cast"))
	if len(paths) != 1 {
		t.Fatalf("recordings %v, want one", paths)
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	return paths[0], b
}

// replay feeds a recording's output and resizes into a fresh emulator of the
// header's size: the screen a player shows at its end. It returns the rows
// and the output.
func replay(t *testing.T, cast []byte) (asciicast.Header, []string, string) {
	t.Helper()
	r, err := asciicast.NewReader(bytes.NewReader(cast))
	if err != nil {
		t.Fatal(err)
	}
	scr := protocol.NewScreen(hclog.NewNullLogger(), r.Header.Width, r.Header.Height, nil)
	defer scr.Close()
	var out strings.Builder
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Code {
		case asciicast.Output:
			scr.Write([]byte(ev.Data))
			out.WriteString(ev.Data)
		case asciicast.Resize:
			cols, rows, err := ev.Size()
			if err != nil {
				t.Fatal(err)
			}
			scr.Resize(cols, rows)
		}
	}
	var rows []string
	for _, row := range scr.Rows() {
		rows = append(rows, row.Text)
	}
	return r.Header, rows, out.String()
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 10 s", what)
		}
	}
}

// quietFor reports whether the agent printed nothing for d.
func (s *Session) quietFor(d time.Duration) bool {
	return time.Since(time.Unix(0, s.out.last.Load())) > d
}

func onScreen(s *Session, text string) bool {
	return strings.Contains(strings.Join(s.reader.Rows(), "\n"), text)
}

// A fake TUI draws (alternate screen, cursor moves, colours, ten repaints of
// an answer) in a pty that is resized on the way: the recording replays to
// the screen warden's own emulator shows at that moment, and holds every
// byte the terminal log holds.
func TestRecordingReplaysToTheLiveScreen(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := fakeSession("tui", "tui-answer", "claude", runner.Size{Rows: 50, Cols: 200})
	dir := recorded(t, &cfg)
	cfg.Team = newTestTeam()
	s, out := startSession(t, cfg)

	waitFor(t, "ready on the screen", func() bool { return onScreen(s, "ready") && s.quietFor(200*time.Millisecond) })
	if err := s.Resize(runner.Size{Rows: 40, Cols: 160}); err != nil {
		t.Fatal(err)
	}
	s.Input([]byte("CHECKPOINT REQUEST: T1\r"))
	waitFor(t, "the answer drawn", func() bool {
		return onScreen(s, "Estimated Progress: 10%") && s.quietFor(300*time.Millisecond)
	})
	live := s.reader.Rows()
	upTo := s.rec.Size() // the recording so far: what made the screen above

	s.Input([]byte("quit\r")) // the TUI leaves its alternate screen and exits
	select {
	case o := <-out:
		if o != Exited {
			t.Errorf("outcome %v", o)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the fake TUI did not quit")
	}

	path, cast := castOf(t, dir)
	if !strings.HasPrefix(filepath.Base(path), "tui-"+s.ID()+".") {
		t.Errorf("recording %s, want tui-%s.cast", path, s.ID())
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("recording mode %v", fi.Mode())
	}
	h, rows, _ := replay(t, cast[:upTo])
	if fmt.Sprint(rows) != fmt.Sprint(live) {
		t.Fatalf("the replayed screen differs from the live one\nreplayed: %q\nlive:     %q", rows, live)
	}
	if h.Width != 200 || h.Height != 50 || len(h.Env) != 1 || h.Env["TERM"] != "xterm-256color" {
		t.Errorf("header %+v", h)
	}
	if !bytes.Contains(cast, []byte(`"r", "160x40"]`)) {
		t.Error("the resize is not in the recording")
	}
	_, _, all := replay(t, cast)
	log, err := os.ReadFile(cfg.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	if all != string(log) {
		t.Errorf("the recording's output (%d bytes) differs from the terminal log (%d bytes)", len(all), len(log))
	}
}

// The header's size is the pty's, as the agent sees it, and a resize is
// recorded before what the agent printed after it.
func TestRecordingHeaderIsThePtySize(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := fakeSession("w", "winsize", "plain", runner.Size{Rows: 33, Cols: 101})
	dir := recorded(t, &cfg)
	team := newTestTeam()
	cfg.Team = team
	s, out := startSession(t, cfg)
	logHas := func(text string) func() bool {
		return func() bool { b, _ := os.ReadFile(cfg.LogPath); return bytes.Contains(b, []byte(text)) }
	}
	waitFor(t, "the agent's size", logHas("size 33 101"))
	s.Resize(runner.Size{Rows: 20, Cols: 70})
	waitFor(t, "the agent's new size", logHas("size 20 70"))
	close(team.stop)
	<-out

	_, cast := castOf(t, dir)
	h, _, _ := replay(t, cast)
	if h.Width != 101 || h.Height != 33 {
		t.Errorf("header %dx%d, want the pty's 101x33", h.Width, h.Height)
	}
	text := string(cast)
	first, resize, second := strings.Index(text, "size 33 101"), strings.Index(text, `"r", "70x20"]`), strings.Index(text, "size 20 70")
	if first < 0 || resize < first || second < resize {
		t.Errorf("want the first size, the resize, then the second size in order:\n%s", cast)
	}
}

// Past log_max_size the recording stops with a closing note (the terminal
// log, rotated, keeps everything).
func TestRecordingStopsAtLogMaxSize(t *testing.T) {
	defer proctest.AssertNone(t)
	cfg := fakeSession("f", "flood:1", "plain", runner.Size{})
	dir := recorded(t, &cfg)
	cfg.LogMaxSize = 64 << 10
	cfg.Team = newTestTeam()
	_, out := startSession(t, cfg)
	<-out

	path, cast := castOf(t, dir)
	if len(cast) > 64<<10 {
		t.Errorf("recording of %d bytes, cap %d", len(cast), 64<<10)
	}
	h, _, text := replay(t, cast)
	if h.Width != runner.DefaultCols || h.Height != runner.DefaultRows {
		t.Errorf("header %dx%d, want the default 200x50", h.Width, h.Height)
	}
	if !strings.HasSuffix(text, "[warden: the recording stops here: it reached log_max_size (65536 bytes); the rest of the session is in f.log]\r\n") {
		t.Errorf("%s does not end with the closing note: …%q", path, text[max(len(text)-200, 0):])
	}
	if !strings.HasPrefix(text, strings.Repeat(strings.ReplaceAll(string(fakeagent.FloodLine), "\n", "\r\n"), 10)) {
		t.Errorf("the recording does not start with the agent's output: %q", text[:min(len(text), 200)])
	}
}
