package unixsock

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Dial connects to warden's socket at path, and only to warden's: the
// directory it is in must be ours and writable by no one else (CheckDir),
// the socket file ours, a socket and not a link; and once connected, the
// process that listens must be of our user, as the kernel says
// (SO_PEERCRED: a client cannot ask before it connects, so it asks right
// after, before it sends a byte). A socket another user could have put
// there is refused with an error wrapping ErrNotPrivate.
func Dial(path string, timeout time.Duration) (*net.UnixConn, error) {
	if err := CheckSocket(path); err != nil {
		return nil, err
	}
	c, err := net.DialTimeout("unix", path, timeout)
	if err != nil {
		return nil, err
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("socket %s: not a unix connection", path)
	}
	if p := PeerOf(uc); !p.Known || p.Uid != os.Getuid() {
		uc.Close()
		return nil, fmt.Errorf("refusing to talk to %s: the process listening on it (pid %d) runs as uid %d, not as this user (uid %d): %w",
			path, p.Pid, p.Uid, os.Getuid(), ErrNotPrivate)
	}
	return uc, nil
}

// CheckSocket refuses a socket path whose directory is not private to us
// (CheckDir) or whose file is not a socket of ours. A socket that is not
// there is not refused here: connecting to it says so.
func CheckSocket(path string) error {
	if err := CheckDir(filepath.Dir(path)); err != nil {
		if os.IsNotExist(err) {
			return err
		}
		return fmt.Errorf("refusing to talk to %s: %w", path, err)
	}
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	uid, known := owner(st)
	switch {
	case st.Mode()&os.ModeSocket == 0:
		return fmt.Errorf("refusing to talk to %s: not a socket (%v): %w", path, st.Mode().Type(), ErrNotPrivate)
	case known && uid != os.Getuid():
		return fmt.Errorf("refusing to talk to %s: the socket belongs to uid %d, not to this user (uid %d): %w",
			path, uid, os.Getuid(), ErrNotPrivate)
	}
	return nil
}
