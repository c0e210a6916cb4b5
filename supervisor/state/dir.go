package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Dir is an open state directory. It may hold secrets from agents'
// transcripts: the directory and its sub-directories are 0700, its files
// 0600, and nothing in it is followed through a symlink.
type Dir struct {
	Layout
	lock *os.File
}

// markers are entries only a warden state dir holds: an existing directory
// with none of them, and other things in it, is not taken over.
var markers = []string{"lock", "state.json", "events.jsonl", "checkpoints"}

// Open creates the state directory (0700) and its sub-directories, or checks
// an existing one: it must be a directory of this user that no one else may
// write to, and either empty or a warden state dir already. It never changes
// the mode of a directory that is not warden's.
func Open(root string) (*Dir, error) {
	d := &Dir{Layout: NewLayout(root)}
	if err := d.checkRoot(); err != nil {
		return nil, err
	}
	for _, sub := range []string{d.Logs(), d.Checkpoints()} {
		if err := mkdirPrivate(sub); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func (d *Dir) checkRoot() error {
	fi, err := os.Stat(d.Root)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(d.Root, 0o700); err != nil {
			return fmt.Errorf("create state dir: %w", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("state dir %s is not a directory", d.Root)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("state dir %s belongs to uid %d, not to this user (uid %d)", d.Root, st.Uid, os.Getuid())
	}
	if fi.Mode()&(0o022|fs.ModeSticky) != 0 {
		return fmt.Errorf("state dir %s can be written by other users (mode %v): use a directory of your own", d.Root, fi.Mode())
	}
	if !d.isWardens() {
		return fmt.Errorf("state dir %s holds other files and no warden state: choose an empty or new directory", d.Root)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(d.Root, 0o700); err != nil {
			return fmt.Errorf("state dir permissions: %w", err)
		}
	}
	return nil
}

// isWardens reports whether the directory is empty or holds warden's files.
func (d *Dir) isWardens() bool {
	entries, err := os.ReadDir(d.Root)
	if err != nil || len(entries) == 0 {
		return err == nil
	}
	for _, m := range markers {
		if _, err := os.Lstat(d.path(m)); err == nil {
			return true
		}
	}
	return false
}

// mkdirPrivate makes a 0700 sub-directory, refusing a symlink in its place.
func mkdirPrivate(p string) error {
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(p, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", p, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("state dir: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symlink: refusing to follow it out of the state dir", p)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", p)
	case fi.Mode().Perm() != 0o700:
		if err := os.Chmod(p, 0o700); err != nil {
			return fmt.Errorf("state dir permissions: %w", err)
		}
	}
	return nil
}

// MkdirPrivate creates a 0700 directory inside the state dir (an agent's
// settings dir, handoffs/), refusing a symlink in its place.
func (d *Dir) MkdirPrivate(p string) error { return mkdirPrivate(p) }

// OpenPrivate opens a file inside the state dir for appending (created
// 0600), never through a symlink.
func OpenPrivate(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	return f, nil
}
