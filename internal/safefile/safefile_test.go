//go:build !e2e

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// outside is a file and a directory a planted link points at.
func outside(t *testing.T) (file, dir string) {
	t.Helper()
	base := t.TempDir()
	file, dir = filepath.Join(base, "victim"), filepath.Join(base, "victim-dir")
	os.WriteFile(file, []byte("precious\n"), 0o644)
	os.Mkdir(dir, 0o755)
	os.Chmod(dir, 0o755)
	return file, dir
}

func untouched(t *testing.T, file, dir string) {
	t.Helper()
	if b, _ := os.ReadFile(file); string(b) != "precious\n" {
		t.Errorf("the file outside was changed: %q", b)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o644 {
		t.Errorf("the file outside was chmodded: %v", fi.Mode())
	}
	ents, _ := os.ReadDir(dir)
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o755 || len(ents) != 0 {
		t.Errorf("the directory outside was changed: %v %v", fi.Mode(), ents)
	}
}

// A symbolic link at any level below root, or a file where a directory
// should be, is refused with an error naming it; nothing outside changes.
func TestMkdirAllRefusesLinksOnTheWay(t *testing.T) {
	file, dir := outside(t)
	root := t.TempDir()
	os.Symlink(dir, filepath.Join(root, "a"))
	err := MkdirAll(root, filepath.Join(root, "a", "b", "c"))
	if !errors.Is(err, ErrSymlink) || !errors.Is(err, syscall.ELOOP) || !strings.Contains(err.Error(), filepath.Join(root, "a")+" ") {
		t.Errorf("a link at a: %v", err)
	}
	os.Remove(filepath.Join(root, "a"))
	os.MkdirAll(filepath.Join(root, "a"), 0o700)
	os.Symlink(dir, filepath.Join(root, "a", "b"))
	if err := MkdirAll(root, filepath.Join(root, "a", "b", "c")); !errors.Is(err, ErrSymlink) {
		t.Errorf("a link at a/b: %v", err)
	}
	os.WriteFile(filepath.Join(root, "f"), nil, 0o600)
	if err := MkdirAll(root, filepath.Join(root, "f", "x")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file on the way: %v", err)
	}
	if err := MkdirAll(root, filepath.Join(root, "..", "elsewhere")); err == nil {
		t.Error("a directory outside root was made")
	}
	untouched(t, file, dir)
	if err := MkdirAll(root, filepath.Join(root, "x", "y")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(root, "x", "y")); !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("x/y: %v", fi.Mode())
	}
}

// A directory of ours with a loose mode is set to 0700; another user's is
// refused and keeps its mode.
func TestMkdirAllNeverChmodsAnotherUsersDir(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "logs")
	os.Mkdir(sub, 0o755)
	os.Chmod(sub, 0o755)
	restore := PretendUID(os.Getuid() + 4242)
	err := MkdirAll(root, sub)
	restore()
	if !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), sub) {
		t.Errorf("another user's directory: %v", err)
	}
	if fi, _ := os.Stat(sub); fi.Mode().Perm() != 0o755 {
		t.Errorf("its mode was changed to %v", fi.Mode().Perm())
	}
	if err := MkdirAll(root, sub); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(sub); fi.Mode().Perm() != 0o700 {
		t.Errorf("our own directory stayed %v", fi.Mode().Perm())
	}
}

// Open never follows a link, never blocks on a FIFO, opens only regular
// files of ours; ReadFile likewise.
func TestOpenRefusesLinksFIFOsAndForeignFiles(t *testing.T) {
	file, dir := outside(t)
	root := t.TempDir()
	link := filepath.Join(root, "events.jsonl")
	os.Symlink(file, link)
	if _, err := OpenAppend(root, link); !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), link) {
		t.Errorf("append through a link: %v", err)
	}
	if _, err := ReadFile(link); !errors.Is(err, ErrSymlink) {
		t.Errorf("read through a link: %v", err)
	}
	dangling := filepath.Join(root, "lock")
	os.Symlink(filepath.Join(dir, "new-file"), dangling)
	if _, err := Open(dangling, os.O_RDWR|os.O_CREATE); !errors.Is(err, ErrSymlink) {
		t.Errorf("create through a dangling link: %v", err)
	}
	fifo := filepath.Join(root, "fifo")
	syscall.Mkfifo(fifo, 0o600)
	for _, flag := range []int{os.O_RDONLY, os.O_WRONLY | os.O_APPEND, os.O_RDWR} {
		done := make(chan error, 1)
		go func() {
			f, err := Open(fifo, flag)
			if f != nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("a FIFO opened with %#x: %v", flag, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("opening a FIFO with %#x blocked", flag)
		}
	}
	mine := filepath.Join(root, "state.json")
	os.WriteFile(mine, []byte("{}"), 0o600)
	restore := PretendUID(os.Getuid() + 4242)
	_, err := ReadFile(mine)
	restore()
	if !errors.Is(err, ErrForeign) {
		t.Errorf("another user's file: %v", err)
	}
	untouched(t, file, dir)
	f, err := OpenAppend(root, filepath.Join(root, "logs", "w.log"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, _ := os.Stat(filepath.Join(root, "logs", "w.log")); fi.Mode().Perm() != 0o600 {
		t.Errorf("created %v, want 0600", fi.Mode().Perm())
	}
}

// WriteAtomic replaces a link at the path (never writing through it) and
// refuses a link on the way.
func TestWriteAtomicReplacesALinkAndRefusesOneOnTheWay(t *testing.T) {
	file, dir := outside(t)
	root := t.TempDir()
	p := filepath.Join(root, "STATUS.md")
	os.Symlink(file, p)
	if err := WriteAtomic(root, p, []byte("status")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(p); fi.Mode()&os.ModeSymlink != 0 {
		t.Error("the link is still there")
	}
	os.Symlink(dir, filepath.Join(root, "handoffs"))
	if err := WriteAtomic(root, filepath.Join(root, "handoffs", "h.md"), []byte("x")); !errors.Is(err, ErrSymlink) {
		t.Errorf("write through a linked directory: %v", err)
	}
	untouched(t, file, dir)
}

// The state dir check: what validate and run refuse, without changing
// anything.
func TestCheckStateDir(t *testing.T) {
	base := t.TempDir()
	if exists, err := CheckStateDir(filepath.Join(base, "new")); exists || err != nil {
		t.Errorf("a new dir: %v %v", exists, err)
	}
	dangling := filepath.Join(base, "dangling")
	os.Symlink(filepath.Join(base, "nothing"), dangling)
	if _, err := CheckStateDir(dangling); err == nil {
		t.Error("a dangling link was accepted")
	}
	shared := filepath.Join(base, "shared")
	os.Mkdir(shared, 0o700)
	os.Chmod(shared, 0o777|os.ModeSticky)
	if _, err := CheckStateDir(shared); !errors.Is(err, ErrShared) {
		t.Errorf("a 1777 dir: %v", err)
	}
	if err := PrepareStateDir(shared); !errors.Is(err, ErrShared) {
		t.Errorf("prepare a 1777 dir: %v", err)
	}
	if fi, _ := os.Stat(shared); fi.Mode()&os.ModeSticky == 0 || fi.Mode().Perm() != 0o777 {
		t.Errorf("its mode changed: %v", fi.Mode())
	}
	mine := filepath.Join(base, "mine")
	os.Mkdir(mine, 0o755)
	os.Chmod(mine, 0o755)
	restore := PretendUID(os.Getuid() + 4242)
	err := PrepareStateDir(mine)
	restore()
	if !errors.Is(err, ErrForeign) {
		t.Errorf("another user's dir: %v", err)
	}
	if fi, _ := os.Stat(mine); fi.Mode().Perm() != 0o755 {
		t.Errorf("another user's dir was chmodded: %v", fi.Mode())
	}
	if err := PrepareStateDir(mine); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(mine); fi.Mode().Perm() != 0o700 {
		t.Errorf("our empty dir stayed %v", fi.Mode())
	}
	// A directory of the user's own files is not taken over; one that
	// `warden checkpoint` (the signal file) or a run that stopped early
	// (logs/warden.log) made is warden's. A project's logs/ is not enough.
	for _, c := range []struct {
		files []string
		ok    bool
	}{
		{[]string{"notes.txt"}, false}, {[]string{"logs/app.log", "src/main.go"}, false},
		{[]string{"checkpoint-needed"}, true}, {[]string{"logs/warden.log"}, true},
		{[]string{"state.json", "STATUS.md"}, true},
		// Empty directories warden would make (a volume or a benchmark kit
		// preparing logs/) are as good as empty; any other is not.
		{[]string{"logs/"}, true}, {[]string{"logs/", "checkpoints/"}, true},
		{[]string{"logs/", "src/"}, false}, {[]string{"logs/app.log"}, false},
	} {
		d := t.TempDir()
		for _, f := range c.files {
			if strings.HasSuffix(f, "/") {
				os.MkdirAll(filepath.Join(d, f), 0o700)
				continue
			}
			os.MkdirAll(filepath.Join(d, filepath.Dir(f)), 0o700)
			os.WriteFile(filepath.Join(d, f), nil, 0o600)
		}
		if _, err := CheckStateDir(d); (err == nil) != c.ok {
			t.Errorf("a dir holding %v: %v, want accepted %v", c.files, err, c.ok)
		}
	}
}

// A sticky directory on the way (a shared one like /tmp) is refused, never
// made private.
func TestMkdirAllNeverChmodsASharedDir(t *testing.T) {
	root := t.TempDir()
	shared := filepath.Join(root, "tmp")
	os.Mkdir(shared, 0o700)
	os.Chmod(shared, 0o777|os.ModeSticky)
	if err := MkdirAll(root, filepath.Join(shared, "logs")); !errors.Is(err, ErrShared) {
		t.Errorf("a sticky dir on the way: %v", err)
	}
	if fi, _ := os.Stat(shared); fi.Mode()&os.ModeSticky == 0 || fi.Mode().Perm() != 0o777 {
		t.Errorf("its mode changed to %v", fi.Mode())
	}
}
