package state

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/wardenhq/warden/internal/safefile"
)

// ErrLocked is returned when another warden holds the team's lock.
var ErrLocked = errors.New("another warden is running for this team")

// Lock takes the team lock (one supervisor per state dir). The lock is an
// flock on state_dir/lock, so it is released by the kernel if warden dies;
// the file holds the pid of the holder for the error message.
func (d *Dir) Lock() error {
	f, err := safefile.Open(d.Layout.Lock(), os.O_RDWR|os.O_CREATE)
	if err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("%w (pid %s holds %s)", ErrLocked, strings.TrimSpace(string(b[:n])), d.Layout.Lock())
		}
		return fmt.Errorf("lock %s: %w", d.Layout.Lock(), err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	d.lock = f
	return nil
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
