package unixsock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// PrivateDir makes dir, a socket directory outside the state dir (the short
// fallback under $XDG_RUNTIME_DIR or /tmp), fresh with mode 0700 — or takes
// the one already there only when it is a directory of ours, not a link,
// that no one else may read, enter or write (mode 0700 or stricter): one
// another user made first, or that others could write to before, may hold
// their socket or a link in warden's place. Its parent must exist and keep
// others from renaming or replacing it (not writable by others, or sticky,
// as /tmp is). What fails is an error wrapping ErrNotPrivate, saying why.
func PrivateDir(dir string) error {
	parent := filepath.Dir(dir)
	pst, err := os.Stat(parent)
	if err != nil {
		return fmt.Errorf("socket dir %s: %w", dir, err)
	}
	if !pst.IsDir() {
		return fmt.Errorf("socket dir %s: %s is not a directory: %w", dir, parent, ErrNotPrivate)
	}
	if pst.Mode().Perm()&0o022 != 0 && pst.Mode()&os.ModeSticky == 0 {
		return fmt.Errorf("socket dir %s: its parent %s has mode %04o without the sticky bit: anyone may replace it: %w",
			dir, parent, pst.Mode().Perm(), ErrNotPrivate)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create socket dir: %w", err)
	}
	return checkDir(dir, 0o077)
}
