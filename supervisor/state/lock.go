package state

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wardenhq/warden/internal/safefile"
)

// ErrLocked is returned when another warden holds the team's lock.
var ErrLocked = errors.New("another warden is running for this team")

// Lock takes the team lock (one supervisor per state dir). The lock is an
// flock on state_dir/lock, so it is released by the kernel if warden dies;
// the file holds the pid of the holder for the error message.
//
// A warden killed with SIGKILL can leave the lock held for a moment after
// it is gone: a child it was forking holds a copy of the descriptor until
// it execs or dies of its parent's death. So while the pid the file names
// is dead, Lock tries again for up to lockGrace.
func (d *Dir) Lock() error {
	f, err := safefile.Open(d.Layout.Lock(), os.O_RDWR|os.O_CREATE)
	if err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	deadline := time.Now().Add(lockGrace)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		holder := lockHolder(f)
		if errors.Is(err, syscall.EWOULDBLOCK) && !pidAlive(holder) && time.Now().Before(deadline) {
			time.Sleep(lockRetry)
			continue
		}
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("%w (pid %s holds %s)", ErrLocked, holder, d.Layout.Lock())
		}
		return fmt.Errorf("lock %s: %w", d.Layout.Lock(), err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	d.lock = f
	return nil
}

const (
	lockGrace = 3 * time.Second
	lockRetry = 50 * time.Millisecond
)

// lockHolder is the pid the lock file names.
func lockHolder(f *os.File) string {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	return strings.TrimSpace(string(b[:n]))
}

// pidAlive reports whether pid names a live process (unknown: alive).
func pidAlive(pid string) bool {
	p, err := strconv.Atoi(pid)
	if err != nil || p <= 0 {
		return true
	}
	return !errors.Is(syscall.Kill(p, 0), syscall.ESRCH)
}

// Unlock releases the team lock.
func (d *Dir) Unlock() {
	if d.lock != nil {
		d.lock.Close()
		d.lock = nil
	}
}

// LockHeld reports whether a warden holds the team lock of the state dir at
// root now.
func LockHeld(root string) bool {
	f, err := safefile.Open(NewLayout(root).Lock(), os.O_RDONLY)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
