package supervisor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// StateDir is a team's state directory (DESIGN §5). It may hold secrets
// from agents' transcripts: the directory and its sub-directories are 0700,
// its files 0600.
type StateDir struct {
	Root string
	lock *os.File
}

// ErrLocked is returned when another warden holds the team's lock.
var ErrLocked = errors.New("another warden is running for this team")

// OpenStateDir creates the state directory and its sub-directories.
func OpenStateDir(root string) (*StateDir, error) {
	for _, d := range []string{root, filepath.Join(root, "logs"), filepath.Join(root, "checkpoints")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("create state dir: %w", err)
		}
		if err := os.Chmod(d, 0o700); err != nil {
			return nil, fmt.Errorf("state dir permissions: %w", err)
		}
	}
	return &StateDir{Root: root}, nil
}

// Path joins elements onto the state dir.
func (s *StateDir) Path(elem ...string) string {
	return filepath.Join(append([]string{s.Root}, elem...)...)
}

// LogPath is the raw terminal log of an agent.
func (s *StateDir) LogPath(agent string) string { return s.Path("logs", agent+".log") }

// Lock takes the team lock (one supervisor per state dir). The lock is an
// flock on state_dir/lock, so it is released by the kernel if warden dies;
// the file holds the pid of the holder for the error message.
func (s *StateDir) Lock() error {
	f, err := os.OpenFile(s.Path("lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(s.Path("lock"))
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("%w (pid %s holds %s)", ErrLocked, strings.TrimSpace(string(b)), s.Path("lock"))
		}
		return fmt.Errorf("lock %s: %w", s.Path("lock"), err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	s.lock = f
	return nil
}

// Unlock releases the team lock.
func (s *StateDir) Unlock() {
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
}

// LockHeld reports whether a warden holds the team lock of stateDir now.
func LockHeld(stateDir string) bool {
	f, err := os.OpenFile(filepath.Join(stateDir, "lock"), os.O_RDONLY, 0)
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
