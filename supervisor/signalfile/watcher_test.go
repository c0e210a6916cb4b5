//go:build !e2e

package signalfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The tests in this file use fsnotify alone: the poll runs on a fake clock
// that they never advance, so every signal here came from an inotify event
// or from the stat after an Add.

func TestPlainWriteFiresOnce(t *testing.T) {
	dir := t.TempDir()
	flag := filepath.Join(dir, "checkpoint-needed")
	h := start(t, flag, nil)
	h.quiet("no file yet")

	write(t, flag) // CREATE, then WRITE
	h.fired("plain write")
	h.settle(dir)
	h.quiet("CREATE and WRITE of one write")

	write(t, flag) // WRITE on a file already reported
	h.settle(dir)
	h.quiet("rewrite of a present file")
}

func TestAtomicRenameOverName(t *testing.T) {
	dir := t.TempDir()
	flag := filepath.Join(dir, "checkpoint-needed")
	h := start(t, flag, nil)

	atomicWrite := func() {
		tmp := flag + ".tmp"
		write(t, tmp)
		if err := os.Rename(tmp, flag); err != nil {
			t.Fatal(err)
		}
	}
	atomicWrite() // flag gets CREATE only
	h.fired("atomic rename")
	h.settle(dir)
	h.quiet("one atomic rename")

	atomicWrite() // replaced while present: still the same presence
	h.settle(dir)
	h.quiet("atomic rename over a present file")
}

func TestTouch(t *testing.T) {
	dir := t.TempDir()
	flag := filepath.Join(dir, "checkpoint-needed")
	h := start(t, flag, nil)

	touch(t, flag)
	h.fired("touch of a new file")

	now := time.Now()
	if err := os.Chtimes(flag, now, now); err != nil { // CHMOD
		t.Fatal(err)
	}
	h.settle(dir)
	h.quiet("touch of a file already reported")

	remove(t, flag)
	touch(t, flag)
	h.fired("touch after removal")
	h.settle(dir)
	h.quiet("one touch")
}

func TestFileExistsBeforeNew(t *testing.T) {
	dir := t.TempDir()
	flag := filepath.Join(dir, "checkpoint-needed")
	write(t, flag)
	h := start(t, flag, nil)
	h.fired("file present at start")
	h.settle(dir)
	h.quiet("present at start")
}

func TestDeleteThenRecreateFiresEachTime(t *testing.T) {
	dir := t.TempDir()
	flag := filepath.Join(dir, "checkpoint-needed")
	h := start(t, flag, nil)
	for range 3 {
		write(t, flag)
		h.fired("creation")
		h.settle(dir)
		h.quiet("one creation")
		remove(t, flag) // what the supervisor does after a team checkpoint
		h.settle(dir)
		h.quiet("removal")
	}
}

func TestDeleteAndRecreateBeforeEventsAreRead(t *testing.T) {
	dir := t.TempDir()
	flag := filepath.Join(dir, "checkpoint-needed")
	h := start(t, flag, nil)
	write(t, flag)
	h.fired("first")
	// Both happen before the watcher sees the REMOVE: a stat at that time
	// finds a file, yet this is a new presence.
	remove(t, flag)
	write(t, flag)
	h.fired("re-created at once")
	h.settle(dir)
	h.quiet("one re-creation")
}

func TestParentCreatedAfterNew(t *testing.T) {
	t.Run("one level, mkdir then write at once", func(t *testing.T) {
		root := t.TempDir()
		flag := filepath.Join(root, ".warden", "checkpoint-needed")
		h := start(t, flag, nil)
		h.quiet("no directory")
		mkdir(t, filepath.Dir(flag))
		write(t, flag)
		h.fired("file in a new directory")
		h.settle(filepath.Dir(flag))
		h.quiet("one write")
	})
	t.Run("two levels, step by step", func(t *testing.T) {
		root := t.TempDir()
		a := filepath.Join(root, "a")
		b := filepath.Join(a, "b")
		flag := filepath.Join(b, "checkpoint-needed")
		h := start(t, flag, nil)
		mkdir(t, a)
		h.waitEvent(a) // the watch moves from root to a
		mkdir(t, b)
		h.waitEvent(b) // and from a to b
		h.quiet("directories only")
		write(t, flag)
		h.fired("file two levels down")
		h.settle(b)
		h.quiet("one write")
	})
	t.Run("two levels, mkdir -p and write at once", func(t *testing.T) {
		root := t.TempDir()
		flag := filepath.Join(root, "a", "b", "checkpoint-needed")
		h := start(t, flag, nil)
		mkdir(t, filepath.Dir(flag))
		write(t, flag)
		h.fired("file two levels down")
		h.settle(filepath.Dir(flag))
		h.quiet("one write")
	})
}

func TestDirectoryRemovedAndRecreated(t *testing.T) {
	t.Run("rm -rf, step by step", func(t *testing.T) {
		state := filepath.Join(t.TempDir(), ".warden")
		flag := filepath.Join(state, "checkpoint-needed")
		mkdir(t, state)
		h := start(t, flag, nil)
		write(t, flag)
		h.fired("first")
		remove(t, state)
		h.waitEvent(state) // the watch falls back to the parent
		mkdir(t, state)
		h.waitEvent(state) // and comes back
		h.quiet("directory only")
		write(t, flag)
		h.fired("file in the re-created directory")
		h.settle(state)
		h.quiet("one write")
	})
	t.Run("rm -rf, mkdir and write at once", func(t *testing.T) {
		state := filepath.Join(t.TempDir(), ".warden")
		flag := filepath.Join(state, "checkpoint-needed")
		mkdir(t, state)
		h := start(t, flag, nil)
		write(t, flag)
		h.fired("first")
		remove(t, state)
		mkdir(t, state)
		write(t, flag)
		h.fired("file in the re-created directory")
	})
	t.Run("renamed away and recreated", func(t *testing.T) {
		root := t.TempDir()
		state := filepath.Join(root, ".warden")
		flag := filepath.Join(state, "checkpoint-needed")
		mkdir(t, state)
		h := start(t, flag, nil)
		write(t, flag)
		h.fired("first")
		if err := os.Rename(state, filepath.Join(root, ".warden.old")); err != nil {
			t.Fatal(err)
		}
		mkdir(t, state)
		write(t, flag)
		h.fired("file in the new directory")
		h.settle(state)
		h.quiet("one write")
	})
}

// An ancestor of the watched directory renamed away makes no event on the
// watched directory itself: the watch stays on the directory that moved,
// under the new name. The guard sees the move and re-arms the watch (this
// was the safety-net poll's job).
func TestAncestorMovedAndRecreated(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a")
	state := filepath.Join(a, "state")
	flag := filepath.Join(state, "checkpoint-needed")
	mkdir(t, state)
	h := start(t, flag, nil)
	write(t, flag)
	h.fired("first")
	if err := os.Rename(a, filepath.Join(root, "a.old")); err != nil {
		t.Fatal(err)
	}
	h.guarded("ancestor moved") // the watch follows the path, not the moved directory
	mkdir(t, state)
	write(t, flag)
	h.fired("file where the path leads now")
	write(t, filepath.Join(root, "a.old", "state", "checkpoint-needed"))
	h.settle(state)
	h.quiet("a write in the moved-away directory is not the signal file")
	h.notPolling("watch re-armed")
}
