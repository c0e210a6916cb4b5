//go:build e2e

package runner

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/fakeagent"
	"github.com/wardenhq/warden/testrig/proctest"
)

func TestFastExitingChildLosesNoOutput(t *testing.T) {
	dir := t.TempDir()
	const runs, single = 200, 50 // the last 50 with GOMAXPROCS(1)
	want := "line 1\r\nline 2\r\nline 3\r\n"
	for i := 0; i < runs; i++ {
		if i == runs-single {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		}
		cfg := fakeConfig("lines:3")
		cfg.LogPath = filepath.Join(dir, fmt.Sprintf("run-%d.log", i))
		p, c := start(t, cfg)
		if exit := waitDone(t, p); !exit.Success() {
			t.Fatalf("run %d: exit %v", i, exit)
		}
		if got := c.String(); got != want {
			t.Fatalf("run %d: output %q, want %q", i, got, want)
		}
		logged, err := os.ReadFile(cfg.LogPath)
		if err != nil {
			t.Fatal(err)
		}
		if string(logged) != want {
			t.Fatalf("run %d: log %q, want %q", i, logged, want)
		}
	}
}

func TestFinalLineWithoutNewlineIsKept(t *testing.T) {
	cfg := fakeConfig("partial:no newline: at the end")
	cfg.LogPath = filepath.Join(t.TempDir(), "agent.log")
	var lines []string
	cfg.Output = NewLines(func(l []byte) { lines = append(lines, string(l)) })
	p, _ := start(t, cfg)
	waitDone(t, p)
	logged, err := os.ReadFile(cfg.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(logged) != "no newline: at the end" {
		t.Errorf("log = %q", logged)
	}
	if len(lines) != 1 || lines[0] != "no newline: at the end" {
		t.Errorf("lines = %q, want the one partial line (flushed at exit)", lines)
	}
}

func TestMegabyteLineArrivesWhole(t *testing.T) {
	const n = 1 << 20
	cfg := fakeConfig(fmt.Sprintf("longline:%d", n))
	var lines [][]byte
	cfg.Output = NewLines(func(l []byte) { lines = append(lines, bytes.Clone(l)) })
	p, _ := start(t, cfg)
	waitDone(t, p)
	if len(lines) != 1 {
		t.Fatalf("got %d lines, want 1", len(lines))
	}
	if !bytes.Equal(lines[0], fakeagent.LongLine(n)) {
		t.Errorf("line of %d bytes differs from the %d bytes written", len(lines[0]), n)
	}
}

func TestLogFileIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "logs")
	cfg := fakeConfig("lines:1")
	cfg.LogPath = filepath.Join(dir, "agent.log")
	p, _ := start(t, cfg)
	waitDone(t, p)
	fi, err := os.Stat(cfg.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, want 0600", fi.Mode().Perm())
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		di, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if di.Mode().Perm() != 0o700 {
			t.Errorf("%s mode %v, want 0700", d, di.Mode().Perm())
		}
	}
}

func TestLogIsAppended(t *testing.T) {
	cfg := fakeConfig("lines:1")
	cfg.LogPath = filepath.Join(t.TempDir(), "agent.log")
	for i := 0; i < 2; i++ {
		p, _ := start(t, cfg)
		waitDone(t, p)
	}
	logged, _ := os.ReadFile(cfg.LogPath)
	if string(logged) != "line 1\r\nline 1\r\n" {
		t.Errorf("log after two runs = %q", logged)
	}
}

func TestExitCodeAndSignalReported(t *testing.T) {
	p, c := start(t, fakeConfig("exit:3"))
	exit := waitDone(t, p)
	if exit.Code != 3 || exit.Signal != 0 || exit.Err != nil || exit.Success() || exit.String() != "exit code 3" {
		t.Errorf("exit = %+v (%v), want code 3", exit, exit)
	}
	if !strings.Contains(c.String(), "exiting with code 3") {
		t.Errorf("output %q", c.String())
	}

	p, c = start(t, fakeConfig("idle"))
	c.waitFor(t, "ready")
	if err := p.Signal(9); err != nil {
		t.Fatal(err)
	}
	exit = waitDone(t, p)
	if exit.Code != -1 || exit.Signal != 9 || exit.String() != "signal: killed" || exit.Success() {
		t.Errorf("exit = %+v (%v), want signal: killed", exit, exit)
	}
	if p.Alive() {
		t.Error("Alive after the agent was killed")
	}
}

func TestStartMissingBinaryLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "agent.log")
	garbage := filepath.Join(dir, "not-a-program")
	if err := os.WriteFile(garbage, []byte{0, 1, 2, 3}, 0o700); err != nil {
		t.Fatal(err)
	}
	fds := openFDs(t)
	for _, argv := range [][]string{{"warden-no-such-binary-xyz"}, {"/nonexistent/warden-agent"}, {dir}, {garbage}, {}} {
		p, err := Start(testLogger, Config{Name: "missing", Argv: argv, LogPath: logPath})
		if err == nil {
			t.Errorf("Start(%q): no error", argv)
			p.Kill()
			p.Wait()
		}
	}
	if _, err := os.Stat(logPath); !os.IsNotExist(err) {
		t.Errorf("log file left behind: %v", err)
	}
	// A leak stays; an fd an earlier test's goroutine opens or closes at
	// this moment (its process's reaper, a finalizer) does not: look again
	// for up to 2 s (it grew by one for a moment in a whole run once).
	after := openFDs(t)
	for deadline := time.Now().Add(2 * time.Second); after > fds && time.Now().Before(deadline); after = openFDs(t) {
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
	}
	if after > fds {
		t.Errorf("open fds grew from %d to %d", fds, after)
	}
	proctest.AssertNone(t)
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}
