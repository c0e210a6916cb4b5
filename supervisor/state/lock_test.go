//go:build !e2e

package state

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// holdLock takes the state dir's flock through a descriptor of its own
// and writes pid into the file, as a warden (or a child it was forking)
// would hold it.
func holdLock(t *testing.T, d *Dir, pid int) *os.File {
	t.Helper()
	f, err := os.OpenFile(d.Layout.Lock(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(pid)+"\n"), 0)
	return f
}

// A live holder is refused at once, naming its pid; a dead warden's lock
// still held for a moment by a descriptor it left in a child (killed with
// SIGKILL while forking) is waited for, not reported as another warden.
func TestLockWaitsForADeadHoldersDescriptor(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	live := holdLock(t, d, os.Getpid())
	start := time.Now()
	err = d.Lock()
	if !errors.Is(err, ErrLocked) || time.Since(start) > time.Second {
		t.Fatalf("Lock with a live holder = %v after %v; want ErrLocked at once", err, time.Since(start))
	}
	live.Close()

	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	held := holdLock(t, d, dead.Process.Pid)
	go func() { time.Sleep(300 * time.Millisecond); held.Close() }()
	if err := d.Lock(); err != nil {
		t.Fatalf("Lock after the dead holder's descriptor closed: %v", err)
	}
	d.Unlock()
}
