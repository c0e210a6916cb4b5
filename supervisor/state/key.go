package state

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/wardenhq/warden/internal/atomicfile"
	"github.com/wardenhq/warden/internal/safefile"
)

// keySize is the length of the key records are sealed with (HMAC-SHA256).
const keySize = 32

// KeyPath is where warden keeps the key it seals its checkpoint records
// with (issue 33): $XDG_STATE_HOME/warden/records.key, else
// ~/.local/state/warden/records.key — outside every state dir, so outside
// the directories agents work in (unless an agent's dir is your home: see
// KeyInside). getenv is os.Getenv in warden.
func KeyPath(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "warden", "records.key"), nil
	}
	home := getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		h, err := os.UserHomeDir()
		if err != nil || !filepath.IsAbs(h) {
			return "", errors.New("no home directory to keep warden's record key in (set XDG_STATE_HOME or HOME)")
		}
		home = h
	}
	return filepath.Join(home, ".local", "state", "warden", "records.key"), nil
}

// LoadKey reads the key at path, making it on first use: 32 random bytes,
// 0600, in a directory made 0700. A key warden did not make as it makes
// one — a symbolic link, not a regular file, another user's, readable or
// writable by others, or of another size — is refused with the reason:
// records sealed with a key others may know prove nothing.
func LoadKey(path string) ([]byte, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, safefile.DirMode); err != nil {
		return nil, fmt.Errorf("record key: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("record key: %w", err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("record key: %w", safefile.SymlinkError(dir))
	case !fi.IsDir():
		return nil, fmt.Errorf("record key: %s is not a directory", dir)
	case !mine(fi):
		return nil, fmt.Errorf("record key: %s belongs to another user", dir)
	case fi.Mode().Perm()&0o077 != 0:
		if err := os.Chmod(dir, safefile.DirMode); err != nil {
			return nil, fmt.Errorf("record key: %w", err)
		}
	}
	key, err := readKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	return makeKey(path)
}

// readKey reads the key at path, and checks it is one warden made.
func readKey(path string) ([]byte, error) {
	f, err := safefile.Open(path, os.O_RDONLY)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("record key: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("record key: %w", err)
	}
	switch perm := fi.Mode().Perm(); {
	case perm&0o007 != 0 || (perm&0o070 != 0 && !safefile.MyGroup(fi)):
		return nil, fmt.Errorf("record key %s may be read or written by others (mode %v): it proves nothing; remove it "+
			"(warden makes a new one, and no record it sealed is trusted then: `warden run --fresh`)", path, perm)
	case perm&0o070 != 0:
		// A scheduler's volume gives its files the pod's group (fsGroup):
		// that group is this pod's; the key is made private again.
		if err := f.Chmod(0o600); err != nil {
			return nil, fmt.Errorf("record key: %w", err)
		}
	}
	key, err := io.ReadAll(io.LimitReader(f, keySize+1))
	if err != nil {
		return nil, fmt.Errorf("record key: %w", err)
	}
	if len(key) != keySize {
		return nil, fmt.Errorf("record key %s is %d bytes, not %d: not one warden made (remove it: warden makes a new one, "+
			"and no record the old one sealed is trusted then)", path, len(key), keySize)
	}
	return key, nil
}

// makeKey writes a new key to path, atomically and only when none is
// there (two wardens starting at once share the first one's).
func makeKey(path string) ([]byte, error) {
	key := make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("record key: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".records.key-*")
	if err != nil {
		return nil, fmt.Errorf("record key: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(key); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("record key: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return readKey(path)
		}
		return nil, fmt.Errorf("record key: %w", err)
	}
	if err := atomicfile.SyncDir(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("record key: %w", err)
	}
	return key, nil
}

// mine reports whether fi belongs to this process's user.
func mine(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Getuid()
}

// KeyInside says whether the key at key is inside dir (an agent's working
// directory, where the agent could read it).
func KeyInside(key, dir string) bool {
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			p = a
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		return p
	}
	rel, err := filepath.Rel(abs(dir), abs(filepath.Dir(key)))
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}
