//go:build e2e

package asciicast

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/creack/pty"

	"github.com/wardenhq/warden/internal/fakeagent"
	"github.com/wardenhq/warden/internal/proctest"
)

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
