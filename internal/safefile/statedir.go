package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// StateMarkers are entries only a warden state dir holds: an existing
// directory with none of them, and other things in it, is not taken over.
// "checkpoint-needed" is the default signal file (`warden checkpoint` may
// make the state dir for it) and logs/warden.log the log `run` opens first.
var StateMarkers = []string{"lock", "state.json", "events.jsonl", "checkpoints", "checkpoint-needed", "logs/warden.log"}

// ErrShared: a directory other users may write to (a world-writable one,
// one whose group may write to it and is not one of this user's groups, or
// a sticky one like /tmp).
var ErrShared = errors.New("can be written by other users")

// CheckStateDir checks the directory at root for use as a state dir,
// changing nothing: it must be a directory (root itself may be a symbolic
// link to one, the user's choice of where it lives), belong to this user,
// be writable by no one else, and be empty or hold warden's state already.
// Writable by no one else: no other-write bit, no sticky bit, and a group
// write bit only when the directory's group is one of this process's own
// groups (see writableByOthers). exists is false, with no error, when
// nothing is at root.
func CheckStateDir(root string) (exists bool, err error) {
	fi, err := os.Stat(root)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(root); lerr == nil {
			return true, fmt.Errorf("state dir %s is a symbolic link to nothing", root)
		}
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("state dir: %w", err)
	}
	if !fi.IsDir() {
		return true, fmt.Errorf("state dir %s is not a directory", root)
	}
	if err := checkOwner("state dir "+root, fi); err != nil {
		return true, fmt.Errorf("%w: use a directory of your own", err)
	}
	if why := writableByOthers(fi); why != "" {
		return true, fmt.Errorf("state dir %s %w (%s): use a directory of your own", root, ErrShared, why)
	}
	if !isWardens(root) {
		return true, fmt.Errorf("state dir %s holds other files and no warden state: choose an empty or new directory", root)
	}
	return true, nil
}

// PrepareStateDir checks root (CheckStateDir) and makes it ready: created
// 0700 (with its parents) when missing, set to 0700 when it is ours with
// another mode (a group-writable or setgid one included). Nothing else is
// created.
func PrepareStateDir(root string) error {
	exists, err := CheckStateDir(root)
	if err != nil {
		return err
	}
	if !exists {
		if err := os.MkdirAll(root, DirMode); err != nil {
			return fmt.Errorf("create state dir: %w", err)
		}
		// Someone may have made it first: check what is there now.
		if _, err := CheckStateDir(root); err != nil {
			return err
		}
	}
	fi, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	// A scheduler's volume comes group-writable and setgid (Kubernetes'
	// fsGroup, on every mount): accepted above, made private here.
	if fi.Mode().Perm() != DirMode || fi.Mode()&(fs.ModeSetgid|fs.ModeSetuid) != 0 {
		if err := os.Chmod(root, DirMode); err != nil {
			return fmt.Errorf("state dir permissions of %s: %w", root, err)
		}
	}
	return nil
}

// stateSubdirs are directories warden makes in a state dir: made empty
// beforehand (a benchmark or a deployment preparing the volume), they do
// not make it someone else's.
var stateSubdirs = []string{"logs", "checkpoints", "handoffs", "agents"}

// isWardens reports whether the directory is empty (or holds nothing but
// empty directories warden would make) or holds warden's files.
func isWardens(root string) bool {
	entries, err := os.ReadDir(root)
	if err != nil {
		return false
	}
	if onlyEmptySubdirs(root, entries) {
		return true
	}
	for _, m := range StateMarkers {
		if _, err := os.Lstat(filepath.Join(root, m)); err == nil {
			return true
		}
	}
	return false
}

// Symlinks returns the symbolic links among root's entries named in top,
// and everywhere beneath root's directories named in deep. It reads only
// directory entries and never follows a link.
func Symlinks(root string, top, deep []string) ([]string, error) {
	var found []string
	for _, n := range append(append([]string{}, top...), deep...) {
		if fi, err := os.Lstat(filepath.Join(root, n)); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			found = append(found, filepath.Join(root, n))
		}
	}
	for _, n := range deep {
		dir := filepath.Join(root, n)
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			continue
		}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type()&fs.ModeSymlink != 0 {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return found, fmt.Errorf("list %s: %w", dir, err)
		}
	}
	return found, nil
}

func onlyEmptySubdirs(root string, entries []os.DirEntry) bool {
	for _, e := range entries {
		if !e.IsDir() || !slices.Contains(stateSubdirs, e.Name()) { // a link is not IsDir
			return false
		}
		if sub, err := os.ReadDir(filepath.Join(root, e.Name())); err != nil || len(sub) > 0 {
			return false
		}
	}
	return true
}
