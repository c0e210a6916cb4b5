//go:build e2e

package runner

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// mountTinyTmpfs mounts a 64 KiB tmpfs on a new temporary directory, or
// skips the test saying why (it needs root, or CAP_SYS_ADMIN).
func mountTinyTmpfs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k,mode=0700"); err != nil {
		t.Skipf("SKIPPED: a real ENOSPC needs a 64 KiB tmpfs, and mounting one failed (%v; run as root). "+
			"TestLogWriteErrorReportedOnceAndRetried still covers the code path with /dev/full", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	})
	return dir
}

// fillDisk writes a file in dir until the file system is full.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); errors.Is(err, syscall.ENOSPC) {
			return path
		} else if err != nil {
			t.Fatal(err)
		}
	}
}

// logErrors records OnLogError's calls.
type logErrors struct {
	mu    sync.Mutex
	calls []error
	ch    chan struct{}
}

func (e *logErrors) report(err error) {
	e.mu.Lock()
	e.calls = append(e.calls, err)
	e.mu.Unlock()
	e.ch <- struct{}{}
}

func (e *logErrors) get() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]error(nil), e.calls...)
}

func (e *logErrors) waitCall(t *testing.T) {
	t.Helper()
	select {
	case <-e.ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("OnLogError not called after 10 s; calls so far %v", e.get())
	}
}

// A real full disk: the agent's output keeps flowing to Output, the failure
// is reported once, and once there is room again the log is written to and
// that is reported once.
func TestLogOnAFullDiskKeepsRelayingAndRecovers(t *testing.T) {
	disk := mountTinyTmpfs(t)
	filler := fillDisk(t, disk)
	errs := &logErrors{ch: make(chan struct{}, 10)}
	cfg := fakeConfig("idle")
	cfg.LogPath = filepath.Join(disk, "logs", "agent.log")
	cfg.LogRetryEvery = 200 * time.Millisecond
	cfg.OnLogError = errs.report
	p, out := start(t, cfg)

	out.waitFor(t, "ready")
	errs.waitCall(t)
	if calls := errs.get(); len(calls) != 1 || !errors.Is(calls[0], syscall.ENOSPC) {
		t.Fatalf("calls %v, want one ENOSPC", calls)
	}
	for _, line := range []string{"one", "two"} {
		time.Sleep(cfg.LogRetryEvery) // each one also retries, and fails again
		if _, err := p.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
		out.waitFor(t, line+"\r\n")
	}
	if calls := errs.get(); len(calls) != 1 {
		t.Fatalf("calls %v, want the one ENOSPC only", calls)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	time.Sleep(cfg.LogRetryEvery)
	if _, err := p.Write([]byte("three\n")); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "three\r\n")
	errs.waitCall(t)
	if _, err := p.Write([]byte("\x04")); err != nil { // end of input: idle exits
		t.Fatal(err)
	}
	if exit := waitDone(t, p); !exit.Success() {
		t.Fatalf("exit %v", exit)
	}
	if calls := errs.get(); len(calls) != 2 || calls[1] != nil {
		t.Fatalf("calls %v, want ENOSPC then nil", calls)
	}
	if got, want := out.String(), "ready\r\none\r\ntwo\r\nthree\r\n"; got != want {
		t.Errorf("relayed %q, want %q", got, want)
	}
	logged, err := os.ReadFile(cfg.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(logged); got != "three\r\n" {
		t.Errorf("log = %q, want only what came once the disk had room", got)
	}
}
