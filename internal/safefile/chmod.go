package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Chmod sets the mode of the file at path — never a symbolic link's target,
// never another user's file — with no window between the check and the
// change: the path is opened O_PATH|O_NOFOLLOW, that very file is checked,
// and its mode is set through /proc/self/fd (as fchmodat with
// AT_SYMLINK_NOFOLLOW does). For what cannot be opened to fchmod, such as
// a socket warden just bound. Without /proc nothing is changed: the error
// is ErrNoProc.
func Chmod(path string, mode os.FileMode) error {
	fd, err := syscall.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("chmod %s: %w", path, err)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fmt.Errorf("chmod %s: %w", path, err)
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
		return SymlinkError(path)
	}
	if int(st.Uid) != getuid() {
		return fmt.Errorf("%s %w (uid %d, not %d)", path, ErrForeign, st.Uid, getuid())
	}
	err = os.Chmod("/proc/self/fd/"+strconv.Itoa(fd), mode)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("chmod %s: %w", path, ErrNoProc)
	}
	if err != nil {
		return fmt.Errorf("chmod %s: %w", path, err)
	}
	return nil
}

// ErrNoProc: /proc is not mounted, so Chmod cannot change a mode safely.
var ErrNoProc = errors.New("/proc is not mounted")
