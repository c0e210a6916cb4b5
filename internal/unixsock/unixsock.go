// Package unixsock is how warden serves on a unix socket of its own (the
// hook socket, the control socket): a private socket (0600) in a directory
// that is ours and that nobody else may write to, a stale socket left by a
// dead process replaced, a live one refused, and the peer's credentials from
// the kernel (SO_PEERCRED).
package unixsock

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/wardenhq/warden/internal/safefile"
)

// ErrInUse is returned by Listen when another process answers on the socket.
var ErrInUse = errors.New("another process is listening")

// Listen listens on the unix socket at path, 0600, in a directory that must
// be ours and not writable by others (it is created 0700 if missing). A
// socket nobody answers on (left by a process that died) is replaced; one
// that answers is ErrInUse. The socket file is removed on Close.
func Listen(path string) (*net.UnixListener, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create socket dir: %w", err)
	}
	if err := CheckDir(dir); err != nil {
		return nil, err
	}
	if c, err := net.DialTimeout("unix", path, 200*time.Millisecond); err == nil {
		c.Close()
		return nil, fmt.Errorf("listen on %s: %w", path, ErrInUse)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove stale socket %s: %w", path, err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	ln.SetUnlinkOnClose(true)
	// Never through a link swapped in since the bind; without /proc the
	// socket keeps the umask's mode in its private directory.
	if err := safefile.Chmod(path, 0o600); err != nil && !errors.Is(err, safefile.ErrNoProc) {
		ln.Close()
		return nil, fmt.Errorf("chmod %s: %w", path, err)
	}
	return ln, nil
}

// ErrNotPrivate is returned (wrapped, naming the path and why) for a socket,
// or the directory it is in, that another user made or may write to: warden
// never listens there, and its clients never talk to what listens there.
var ErrNotPrivate = errors.New("not private to this user")

// CheckDir refuses a socket directory that is a symbolic link or not a
// directory, is not ours, or that others may write to (a fallback dir under
// /tmp someone made before us).
func CheckDir(dir string) error {
	return checkDir(dir, 0o022)
}

// checkDir is CheckDir refusing any of the permission bits in deny.
func checkDir(dir string, deny os.FileMode) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("stat socket dir: %w", err)
	}
	switch uid, known := owner(st); {
	case st.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("socket dir %s is a symbolic link: %w", dir, ErrNotPrivate)
	case !st.IsDir():
		return fmt.Errorf("socket dir %s is not a directory: %w", dir, ErrNotPrivate)
	case known && uid != os.Getuid():
		return fmt.Errorf("socket dir %s belongs to uid %d, not to this user (uid %d): %w", dir, uid, os.Getuid(), ErrNotPrivate)
	case st.Mode().Perm()&deny != 0:
		return fmt.Errorf("socket dir %s has mode %04o: others may write to it: %w", dir, st.Mode().Perm(), ErrNotPrivate)
	}
	return nil
}

// owner is the uid that owns a file.
func owner(st os.FileInfo) (int, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(sys.Uid), true
}

// Dead reports whether an error of a listener's Accept means the listener
// is gone — closed under its server, or its descriptor no longer a
// listening socket — so that no later Accept can succeed. Any other error
// (out of descriptors or memory, a connection aborted before it was
// taken) passes: the server waits a moment and accepts again.
func Dead(err error) bool {
	return errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.EBADF) || errors.Is(err, syscall.EINVAL) ||
		errors.Is(err, syscall.ENOTSOCK)
}
