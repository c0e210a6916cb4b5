// Package safefile opens, creates and checks files and directories inside
// a directory of warden's own (the state dir), where another process of the
// user — an agent — may have planted something: nothing is ever followed
// through a symbolic link, nothing but a regular file is opened as a file
// (a FIFO would block, a device never end), nothing that belongs to another
// user has its mode changed, and every error names the path. Every open and
// mkdir warden does in the state dir goes through here.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/wardenhq/warden/internal/atomicfile"
)

// Modes of what warden creates: its state may hold secrets from agents'
// transcripts.
const (
	DirMode  os.FileMode = 0o700
	FileMode os.FileMode = 0o600
)

// Sentinel errors, for errors.Is.
var (
	// ErrSymlink: a symbolic link where warden expects its own file or
	// directory (the error is also syscall.ELOOP).
	ErrSymlink = errors.New("is a symbolic link: refusing to follow it out of the state dir")
	// ErrNotRegular: a FIFO, socket, device or directory where a file was expected.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrForeign: it belongs to another user.
	ErrForeign = errors.New("belongs to another user")
)

// getuid is the user whose files these are; tests play another one.
var getuid = os.Getuid

// PretendUID makes the checks take uid as this process's user, for tests
// that cannot chown as non-root; it returns the function that undoes it.
func PretendUID(uid int) (restore func()) {
	old := getuid
	getuid = func() int { return uid }
	return func() { getuid = old }
}

// SymlinkError says that p is a symbolic link where warden expects its own
// file or directory. It is ErrSymlink and syscall.ELOOP to errors.Is.
func SymlinkError(p string) error { return &linkError{path: p} }

type linkError struct{ path string }

func (e *linkError) Error() string {
	return e.path + " " + ErrSymlink.Error() + " (remove it)"
}

func (e *linkError) Is(target error) bool { return target == ErrSymlink || target == syscall.ELOOP }

// owner returns the uid of fi, and whether it is known.
func owner(fi fs.FileInfo) (int, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), true
	}
	return 0, false
}

// checkOwner refuses fi when it belongs to another user.
func checkOwner(p string, fi fs.FileInfo) error {
	if uid, ok := owner(fi); ok && uid != getuid() {
		return fmt.Errorf("%s %w (uid %d, not %d)", p, ErrForeign, uid, getuid())
	}
	return nil
}

// MkdirAll makes dir, and every missing directory between root and dir,
// 0700. root itself is not checked (see CheckStateDir), only created when
// missing, with its parents. Every directory on
// the way must be a real directory of this user — never a symbolic link —
// and one of ours with another mode is set to 0700. dir must be root or
// inside it.
func MkdirAll(root, dir string) error {
	absRoot, err1 := filepath.Abs(root)
	absDir, err2 := filepath.Abs(dir)
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	rel, err := filepath.Rel(absRoot, absDir)
	if err != nil || (rel != "." && !filepath.IsLocal(rel)) {
		return fmt.Errorf("%s is not inside %s", dir, root)
	}
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(root, DirMode); err != nil {
			return fmt.Errorf("create %s: %w", root, err)
		}
	}
	if rel == "." {
		return nil
	}
	p := filepath.Clean(root)
	for _, elem := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, elem)
		if err := mkdirOne(p); err != nil {
			return err
		}
	}
	return nil
}

// mkdirOne makes p (0700) or checks the directory that is there.
func mkdirOne(p string) error {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(p, DirMode); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", p, err)
		}
		fi, err = os.Lstat(p)
	}
	if err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	return ensurePrivateDir(p, fi)
}

// ensurePrivateDir checks that fi (from Lstat of p) is a directory of ours
// and sets it to 0700.
func ensurePrivateDir(p string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return SymlinkError(p)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", p)
	}
	if err := checkOwner(p, fi); err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSticky != 0 { // a shared directory such as /tmp: never made private
		return fmt.Errorf("%s %w (mode %v)", p, ErrShared, fi.Mode())
	}
	if fi.Mode().Perm() != DirMode || fi.Mode()&(fs.ModeSetgid|fs.ModeSetuid) != 0 {
		if err := os.Chmod(p, DirMode); err != nil {
			return fmt.Errorf("state dir permissions of %s: %w", p, err)
		}
	}
	return nil
}

// Open opens the file at path with flag (O_CREATE makes it 0600), never
// through a symbolic link, and only when it is a regular file of this user;
// one opened to write is set to 0600 when its mode is looser.
// O_NONBLOCK keeps a planted FIFO from blocking the open; it has no effect
// on a regular file.
func Open(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, FileMode)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, SymlinkError(path)
	case errors.Is(err, syscall.ENXIO): // a FIFO opened for writing with no reader
		return nil, fmt.Errorf("%s %w (remove it)", path, ErrNotRegular)
	case err != nil:
		return nil, err // an *fs.PathError: it names the path
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s %w (%v; remove it)", path, ErrNotRegular, fi.Mode().Type())
	}
	if err := checkOwner(path, fi); err != nil {
		f.Close()
		return nil, err
	}
	// Opened to write, a file of ours with a looser mode is made 0600
	// again: a scheduler's volume makes every file g+rw (Kubernetes'
	// fsGroup, on every mount); what warden writes stays private.
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 && fi.Mode().Perm()&^FileMode != 0 {
		if err := f.Chmod(FileMode); err != nil {
			f.Close()
			return nil, fmt.Errorf("permissions of %s: %w", path, err)
		}
	}
	return f, nil
}

// OpenAppend opens path for appending (created 0600), making its
// directories below root (see MkdirAll) first.
func OpenAppend(root, path string) (*os.File, error) {
	if err := MkdirAll(root, filepath.Dir(path)); err != nil {
		return nil, err
	}
	return Open(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
}

// ReadFile reads the regular file at path, never through a symbolic link.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

// WriteAtomic replaces path with data (0600) through internal/atomicfile,
// making its directories below root first. The temporary file is created
// exclusively and renamed over path, so a symbolic link at path is
// replaced, never followed.
func WriteAtomic(root, path string, data []byte) error {
	if err := MkdirAll(root, filepath.Dir(path)); err != nil {
		return err
	}
	return atomicfile.Write(path, data, FileMode)
}

// WriteDerived is WriteAtomic without the syncs (atomicfile.Replace): for
// a file that a durable copy elsewhere can rebuild.
func WriteDerived(root, path string, data []byte) error {
	if err := MkdirAll(root, filepath.Dir(path)); err != nil {
		return err
	}
	return atomicfile.Replace(path, data, FileMode)
}
