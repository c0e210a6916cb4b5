//go:build !e2e

package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// volumeDir makes a state dir the way Kubernetes' fsGroup leaves one on a
// pod's volume: group gid, g+rwx and setgid on the directory, g+rw on the
// files warden had made 0600.
func volumeDir(t *testing.T, gid int, files ...string) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(d, f), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(d, f), 0o660)
	}
	if err := os.Chown(d, -1, gid); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o770|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	return d
}

func gidOf(t *testing.T, p string) int {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return int(fi.Sys().(*syscall.Stat_t).Gid)
}

// notMyGroup returns a group this process is not in, and the groups to
// pretend this process has so that the directory's group is not among
// them: as root the directory is really chgrp'd to a free gid; as another
// user (who may chgrp only to groups of their own) the process's groups
// are pretended without the directory's.
func notMyGroup(t *testing.T, d string) (gid int, restore func()) {
	t.Helper()
	mine := getgroups()
	if os.Geteuid() == 0 {
		gid = 4242
		for slices.Contains(mine, gid) {
			gid++
		}
		if err := os.Chown(d, -1, gid); err != nil {
			t.Fatal(err)
		}
		return gid, func() {}
	}
	gid = gidOf(t, d)
	return gid, PretendGroups(slices.DeleteFunc(slices.Clone(mine), func(g int) bool { return g == gid }))
}

// A state dir on a volume whose group is one of this process's groups
// (2770, files 0660: what fsGroup makes of it) is accepted and made
// private: the directory 0700 without setgid, a file opened to write 0600;
// one only read keeps its mode.
func TestStateDirOfOwnGroupIsAccepted(t *testing.T) {
	d := volumeDir(t, os.Getegid(), "state.json", "events.jsonl")
	if exists, err := CheckStateDir(d); !exists || err != nil {
		t.Fatalf("a 2770 dir of group %d (ours: %v): %v %v", os.Getegid(), getgroups(), exists, err)
	}
	if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o770 || fi.Mode()&os.ModeSetgid == 0 {
		t.Errorf("the check changed the mode: %v", fi.Mode())
	}
	if err := PrepareStateDir(d); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 || fi.Mode()&(os.ModeSetgid|os.ModeSetuid) != 0 {
		t.Errorf("prepared, the state dir is %v, want drwx------", fi.Mode())
	}
	if _, err := ReadFile(filepath.Join(d, "state.json")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(d, "state.json")); fi.Mode().Perm() != 0o660 {
		t.Errorf("a file only read was chmodded: %v", fi.Mode())
	}
	f, err := Open(filepath.Join(d, "events.jsonl"), os.O_WRONLY|os.O_APPEND)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, _ := os.Stat(filepath.Join(d, "events.jsonl")); fi.Mode().Perm() != 0o600 {
		t.Errorf("a 0660 file opened to append is %v, want -rw-------", fi.Mode())
	}
}

// What is really shared stays refused, and untouched: a directory anyone
// may write to, a sticky one, and one whose group may write to it when
// that group is not one of this process's.
func TestStateDirWritableByOthersIsRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		mode os.FileMode
		why  string
	}{
		{"o+w", 0o707, "anyone may write"},
		{"o+w and g+w", 0o777, "anyone may write"},
		{"sticky", 0o700 | os.ModeSticky, "sticky"},
	} {
		d := volumeDir(t, os.Getegid())
		os.Chmod(d, c.mode)
		before, _ := os.Stat(d)
		_, err := CheckStateDir(d)
		if !errors.Is(err, ErrShared) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s (%v): %v, want ErrShared saying %q", c.name, before.Mode(), err, c.why)
		}
		if err := PrepareStateDir(d); !errors.Is(err, ErrShared) {
			t.Errorf("prepare %s: %v", c.name, err)
		}
		if after, _ := os.Stat(d); after.Mode() != before.Mode() {
			t.Errorf("%s: the refused dir's mode changed %v → %v", c.name, before.Mode(), after.Mode())
		}
	}

	d := volumeDir(t, os.Getegid(), "state.json")
	gid, restore := notMyGroup(t, d)
	defer restore()
	before, _ := os.Stat(d)
	_, err := CheckStateDir(d)
	want := fmt.Sprintf("group %d may write to it and is not one of your groups", gid)
	if !errors.Is(err, ErrShared) || !strings.Contains(err.Error(), want) {
		t.Errorf("a 2770 dir of group %d, not ours (%v): %v, want ErrShared saying %q", gid, getgroups(), err, want)
	}
	if err := PrepareStateDir(d); !errors.Is(err, ErrShared) {
		t.Errorf("prepare it: %v", err)
	}
	if after, _ := os.Stat(d); after.Mode() != before.Mode() || gidOf(t, d) != gid {
		t.Errorf("the refused dir changed: %v → %v", before.Mode(), after.Mode())
	}
	// The same group may read it: no write bit, nothing to refuse.
	os.Chmod(d, 0o750)
	if _, err := CheckStateDir(d); err != nil {
		t.Errorf("a 0750 dir of group %d: %v", gid, err)
	}
}
