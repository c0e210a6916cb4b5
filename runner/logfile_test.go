//go:build !e2e

package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// newTestLog opens a logFile at dir/agent.log with a fake clock; calls
// collects what OnLogError got.
func newTestLog(t *testing.T, cfg Config) (l *logFile, clock *time.Time, calls *[]error) {
	t.Helper()
	if cfg.LogPath == "" {
		cfg.LogPath = filepath.Join(t.TempDir(), "agent.log")
	}
	calls = new([]error)
	cfg.OnLogError = func(err error) { *calls = append(*calls, err) }
	l = newLogFile(testLogger, cfg)
	clock = &time.Time{}
	*clock = time.Unix(1_000_000, 0)
	l.now = func() time.Time { return *clock }
	t.Cleanup(func() { _ = l.close() })
	return l, clock, calls
}

func mustStart(t *testing.T, l *logFile) {
	t.Helper()
	if err := l.start(); err != nil {
		t.Fatal(err)
	}
}

func TestLogRotatesKeepingTheNewest(t *testing.T) {
	l, _, calls := newTestLog(t, Config{LogMaxSize: 10, LogKeep: 3})
	mustStart(t, l)
	for i := range 9 {
		l.write([]byte(strings.Repeat(fmt.Sprint(i), 4))) // two 4-byte chunks fit in 10
	}
	for name, want := range map[string]string{
		"": "8888", ".1": "66667777", ".2": "44445555", ".3": "22223333",
	} {
		if got := readFile(t, l.path+name); got != want {
			t.Errorf("agent.log%s = %q, want %q", name, got, want)
		}
	}
	if _, err := os.Lstat(l.path + ".4"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("agent.log.4 exists (keep is 3): %v", err)
	}
	if len(*calls) != 0 {
		t.Errorf("OnLogError called: %v", *calls)
	}
}

func TestLogFillsUpToMaxExactly(t *testing.T) {
	l, _, _ := newTestLog(t, Config{LogMaxSize: 8, LogKeep: 1})
	mustStart(t, l)
	l.write([]byte("abcd"))
	l.write([]byte("efgh")) // exactly max: no rotation yet
	if _, err := os.Lstat(l.path + ".1"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("rotated at exactly max size: %v", err)
	}
	l.write([]byte("0123456789")) // larger than max: a file of its own
	l.write([]byte("x"))
	for name, want := range map[string]string{"": "x", ".1": "0123456789"} {
		if got := readFile(t, l.path+name); got != want {
			t.Errorf("agent.log%s = %q, want %q", name, got, want)
		}
	}
}

func TestLogSizeCountsWhatAnEarlierSessionWrote(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.log")
	if err := os.WriteFile(path, []byte("earlier!"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, _, _ := newTestLog(t, Config{LogPath: path, LogMaxSize: 10})
	mustStart(t, l)
	l.write([]byte("ab")) // 8 + 2 fits
	l.write([]byte("cd")) // 10 + 2 does not
	if got := readFile(t, path+".1"); got != "earlier!ab" {
		t.Errorf("agent.log.1 = %q, want the earlier session's bytes and then ab", got)
	}
	if got := readFile(t, path); got != "cd" {
		t.Errorf("agent.log = %q, want cd", got)
	}
}

func TestLogRotationReplacesASymlinkInsteadOfFollowingIt(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, _, _ := newTestLog(t, Config{LogPath: filepath.Join(dir, "agent.log"), LogMaxSize: 4, LogKeep: 2})
	mustStart(t, l)
	for _, name := range []string{".1", ".2"} {
		if err := os.Symlink(target, l.path+name); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []string{"aaaa", "bbbb", "cccc"} {
		l.write([]byte(s))
	}
	if got := readFile(t, target); got != "precious" {
		t.Errorf("symlink target changed to %q", got)
	}
	for name, want := range map[string]string{"": "cccc", ".1": "bbbb", ".2": "aaaa"} {
		fi, err := os.Lstat(l.path + name)
		if err != nil || !fi.Mode().IsRegular() {
			t.Errorf("agent.log%s: %v, %v; want a regular file", name, fi, err)
		} else if got := readFile(t, l.path+name); got != want {
			t.Errorf("agent.log%s = %q, want %q", name, got, want)
		}
	}
}

// fullDisk makes l's opens return /dev/full (every write fails with a real
// ENOSPC from the kernel) while *full is true, and counts opens.
func fullDisk(t *testing.T, l *logFile) (full *bool, opens *int) {
	full, opens = new(bool), new(int)
	*full = true
	l.open = func(path string) (*os.File, int64, error) {
		*opens++
		if !*full {
			return openNoFollow(path)
		}
		f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Skipf("SKIPPED: no /dev/full (%v): the ENOSPC path is not tested here", err)
		}
		return f, 0, nil
	}
	return full, opens
}

func TestLogWriteErrorReportedOnceAndRetried(t *testing.T) {
	l, clock, calls := newTestLog(t, Config{LogRetryEvery: 5 * time.Second})
	full, opens := fullDisk(t, l)
	mustStart(t, l)
	step := func(d time.Duration, data string, wantOpens, wantCalls int) {
		t.Helper()
		*clock = clock.Add(d)
		l.write([]byte(data))
		if *opens != wantOpens || len(*calls) != wantCalls {
			t.Fatalf("after writing %q: %d opens, %d calls (%v); want %d, %d", data, *opens, len(*calls), *calls, wantOpens, wantCalls)
		}
	}
	step(0, "lost1", 1, 1) // ENOSPC: reported
	if err := (*calls)[0]; !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), l.path) {
		t.Fatalf("reported %v, want ENOSPC naming %s", err, l.path)
	}
	step(time.Second, "lost2", 1, 1)   // dropped without a syscall
	step(4*time.Second, "lost3", 2, 1) // 5 s later: reopened, fails again, not reported again
	*full = false
	step(4*time.Second, "lost4", 2, 1) // the disk has room, but the next try is due at 10 s
	step(time.Second, "back", 3, 2)    // retried and written: recovery reported
	if (*calls)[1] != nil {
		t.Fatalf("recovery reported as %v, want nil", (*calls)[1])
	}
	step(0, "+more", 3, 2)
	if got := readFile(t, l.path); got != "back+more" {
		t.Errorf("log = %q, want back+more", got)
	}
	*full = true // fails again: a new episode, reported again
	l.f.Close()
	l.f, _, _ = l.open(l.path)
	step(0, "lost5", 4, 3)
	if !errors.Is((*calls)[2], syscall.ENOSPC) {
		t.Errorf("second failure reported as %v", (*calls)[2])
	}
}

func TestLogFullDiskAtStartIsReportedNotFatal(t *testing.T) {
	l, clock, calls := newTestLog(t, Config{LogRetryEvery: time.Second})
	full := true
	l.open = func(path string) (*os.File, int64, error) {
		if full {
			return nil, 0, &fs.PathError{Op: "open", Path: path, Err: syscall.ENOSPC}
		}
		return openNoFollow(path)
	}
	if err := l.start(); err != nil {
		t.Fatalf("start failed on a full disk: %v", err)
	}
	if len(*calls) != 1 || !errors.Is((*calls)[0], syscall.ENOSPC) {
		t.Fatalf("calls %v, want one ENOSPC", *calls)
	}
	full = false
	l.write([]byte("lost"))
	*clock = clock.Add(time.Second)
	l.write([]byte("kept"))
	if len(*calls) != 2 || (*calls)[1] != nil {
		t.Fatalf("calls %v, want ENOSPC then nil", *calls)
	}
	if got := readFile(t, l.path); got != "kept" {
		t.Errorf("log = %q, want kept", got)
	}
}

func TestLogRefusesASymlinkOnRetry(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	l, clock, calls := newTestLog(t, Config{LogPath: filepath.Join(dir, "agent.log"), LogRetryEvery: time.Second})
	full, _ := fullDisk(t, l)
	mustStart(t, l)
	l.write([]byte("lost"))
	if err := os.Symlink(target, l.path); err != nil {
		t.Fatal(err)
	}
	*full = false
	*clock = clock.Add(time.Second)
	l.write([]byte("secret"))
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("symlink followed on retry: target %v", err)
	}
	if len(*calls) != 1 || l.f != nil {
		t.Errorf("calls %v, file %v: want still failing, reported once", *calls, l.f)
	}
}

func TestLogRefusesAFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.log")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	open := func() error {
		done := make(chan error, 1)
		go func() { _, err := openLogFile(testLogger, Config{LogPath: path}); done <- err }()
		select {
		case err := <-done:
			return err
		case <-time.After(5 * time.Second):
			t.Fatal("opening a FIFO as the log blocked")
			return nil
		}
	}
	if err := open(); err == nil { // no reader: the open itself fails
		t.Fatal("a FIFO without a reader was accepted as the log")
	}
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := open(); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a FIFO with a reader: %v, want refused as not a regular file", err)
	}
}
