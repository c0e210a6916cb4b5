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

	"golang.org/x/sys/unix"

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

// CheckDir refuses a socket directory that is not ours or that others may
// write to (a fallback dir under /tmp someone made before us).
func CheckDir(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("stat socket dir: %w", err)
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !st.IsDir() || (ok && int(sys.Uid) != os.Getuid()) {
		return fmt.Errorf("socket dir %s is not a directory of ours", dir)
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("socket dir %s is writable by others (%v)", dir, st.Mode().Perm())
	}
	return nil
}

// Peer is who is at the other end of a connection, as the kernel says.
type Peer struct {
	Pid, Uid int
	Known    bool // the kernel said (SO_PEERCRED)
}

// PeerOf returns the credentials of the process at the other end of c.
func PeerOf(c *net.UnixConn) Peer {
	raw, err := c.SyscallConn()
	if err != nil {
		return Peer{}
	}
	var p Peer
	_ = raw.Control(func(fd uintptr) {
		if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			p = Peer{Pid: int(cred.Pid), Uid: int(cred.Uid), Known: true}
		}
	})
	return p
}
