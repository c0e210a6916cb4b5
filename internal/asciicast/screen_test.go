package asciicast

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/creack/pty"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/protocol"
)

// recordings of the real CLIs (protocol/testdata): TUIs that redraw, with
// colours, box drawing and wide characters.
var cliStreams = []string{
	"../../protocol/testdata/cli-claude/checkpoint-200x50.raw",
	"../../protocol/testdata/cli-codex/checkpoint-200x50.raw",
	"../../protocol/testdata/cli-gemini/checkpoint-200x50.raw",
}

// chunked cuts raw into random pieces of 1 to 700 bytes, as reads of a pty
// would: multi-byte characters and escape sequences fall across the cuts.
func chunked(raw []byte, seed uint64) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out [][]byte
	for len(raw) > 0 {
		n := min(1+rng.IntN(700), len(raw))
		out = append(out, raw[:n])
		raw = raw[n:]
	}
	return out
}

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

// asciinema itself (Debian's asciinema 2.2, which .ci/run installs) reads
// the recordings: `asciinema cat` prints exactly the output recorded.
func TestAsciinemaCatReadsOurRecordings(t *testing.T) {
	bin, err := exec.LookPath("asciinema")
	if err != nil {
		t.Fatalf("asciinema is not installed (apt-get install asciinema; .ci/run installs it): %v", err)
	}
	raw, err := os.ReadFile(cliStreams[0])
	if err != nil {
		t.Fatal(err)
	}
	raw = append(raw, "\x00\x07\x7f tab\t \"quoted\" back\\slash \xff\xfe \xe2\x9c\xb3 \U0001f389 \xf0\x9f"...)
	path := filepath.Join(t.TempDir(), "w1-0123456789abcdef.cast")
	w, err := Create(testLog, path, Options{Cols: 200, Rows: 50, Term: "xterm-256color", Title: "w1 T1"})
	if err != nil {
		t.Fatal(err)
	}
	for j, c := range chunked(raw, 42) {
		if j == 3 {
			w.Resize(80, 24)
		}
		w.Write(c)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := asciinemaCat(t, bin, path)
	if want := replaced(raw); string(out) != want {
		t.Fatalf("asciinema cat printed %d bytes, want the %d recorded (first difference at %d)",
			len(out), len(want), firstDiff(out, []byte(want)))
	}
}

// asciinemaCat runs `asciinema cat path`, which opens /dev/tty: a pty is
// its controlling terminal and stdin, its stdout a pipe.
func asciinemaCat(t *testing.T, bin, path string) []byte {
	t.Helper()
	defer proctest.AssertNone(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	cmd := exec.Command(bin, "cat", path)
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "PYTHONIOENCODING=utf-8", fakeagent.Env("unused")[1])
	cmd.Stdin = tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("asciinema cat: %v\n%s", err, stderr.String())
	}
	return stdout.Bytes()
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
