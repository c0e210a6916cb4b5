//go:build !e2e

package safefile

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// Chmod sets the mode of a socket of ours, and refuses a symbolic link
// (its target keeps its mode) and another user's file, naming the path.
func TestChmodNeverThroughALinkNorAnotherUsersFile(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "hooks.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.Chmod(sock, 0o777)
	if err := Chmod(sock, 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(sock); fi.Mode().Perm() != 0o600 || fi.Mode().Type() != os.ModeSocket {
		t.Errorf("socket mode %v, want 0600", fi.Mode())
	}

	file, odir := outside(t)
	link := filepath.Join(dir, "planted.sock")
	os.Symlink(file, link)
	if err := Chmod(link, 0o600); !errors.Is(err, ErrSymlink) {
		t.Errorf("Chmod of a link: %v, want ErrSymlink", err)
	}
	untouched(t, file, odir)

	mine := filepath.Join(dir, "mine")
	os.WriteFile(mine, nil, 0o644)
	restore := PretendUID(os.Getuid() + 1)
	err = Chmod(mine, 0o600)
	restore()
	if !errors.Is(err, ErrForeign) {
		t.Errorf("Chmod of another user's file: %v, want ErrForeign", err)
	}
	if fi, _ := os.Stat(mine); fi.Mode().Perm() != 0o644 {
		t.Errorf("another user's file was chmodded: %v", fi.Mode())
	}
}
