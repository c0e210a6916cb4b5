//go:build e2e

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wardenhq/warden/internal/proctest"
)

// fsGroupPass does to dir what the kubelet does to a pod's volume with
// fsGroup on each mount: every directory and file gets group gid, every
// directory g+rwx and the setgid bit, every file g+rw.
func fsGroupPass(t *testing.T, dir string, gid int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if err := os.Lchown(p, -1, gid); err != nil {
			return err
		}
		mode := fi.Mode() | 0o660
		if d.IsDir() {
			mode |= 0o110 | fs.ModeSetgid
		}
		return os.Chmod(p, mode)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func modeOf(t *testing.T, p string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

// A team whose state dir sits on a volume as Kubernetes' fsGroup leaves it
// — the directories 2770 and the files 0660, of warden's own group —
// validates and runs to completion, before and after the kubelet's pass
// over what the first run wrote, and comes out private again (the state
// dir 0700, the files warden wrote 0600). A state dir anyone may write to,
// or whose group may write to it and is not one of warden's, is refused at
// validate and at run (exit 2) and left as it is.
func TestRunOnASchedulersVolume(t *testing.T) {
	defer proctest.AssertNone(t)
	team := opsTeam(t, "checkpoint_interval = \"200ms\"\ncheckpoint_timeout = \"5s\"",
		opsAgent{name: "w", mode: "worker:steps=2", task: true})
	vol, state, gid := filepath.Dir(team), stateOf(team), os.Getegid()
	os.Mkdir(state, 0o700)
	fsGroupPass(t, vol, gid)

	run := func(args ...string) (string, int) {
		t.Helper()
		out, err := warden(args...).CombinedOutput()
		return string(out), exitCode(err)
	}
	if out, code := run("validate", team); code != 0 || !strings.Contains(out, ": ok: ") {
		t.Fatalf("validate on a %v state dir of our group %d: exit %d\n%s", modeOf(t, state), gid, code, out)
	}
	if out, code := run("run", team); code != 0 {
		t.Fatalf("run on a %v state dir of our group %d: exit %d\n%s", modeOf(t, state), gid, code, out)
	}
	fsGroupPass(t, vol, gid)
	if m := modeOf(t, filepath.Join(state, "events.jsonl")); m.Perm() != 0o660 {
		t.Fatalf("the kubelet's pass left events.jsonl %v", m)
	}
	if out, code := run("run", team); code != 0 {
		t.Fatalf("run after the kubelet's pass (state dir %v): exit %d\n%s", modeOf(t, state), code, out)
	}
	if m := modeOf(t, state); m.Perm() != 0o700 || m&fs.ModeSetgid != 0 {
		t.Errorf("after the run the state dir is %v, want drwx------", m)
	}
	for _, f := range []string{"events.jsonl", "state.json"} {
		if m := modeOf(t, filepath.Join(state, f)); m.Perm() != 0o600 {
			t.Errorf("after the run %s is %v, want -rw-------", f, m)
		}
	}

	refused := func(why string) {
		t.Helper()
		before := modeOf(t, state)
		for _, cmd := range []string{"validate", "run"} {
			out, code := run(cmd, team)
			if code != 2 || !strings.Contains(out, "state dir "+state+" can be written by other users") || !strings.Contains(out, why) {
				t.Errorf("%s on a %v state dir: exit %d, want 2 saying %q\n%s", cmd, before, code, why, out)
			}
		}
		if after := modeOf(t, state); after != before {
			t.Errorf("the refused state dir changed from %v to %v", before, after)
		}
	}
	os.Chmod(state, 0o777)
	refused("anyone may write to it")
	if os.Geteuid() != 0 {
		// A user may chgrp only to a group of their own; internal/safefile
		// and supervisor/config test the foreign group with pretended groups.
		t.Log("not root: the state dir of a group warden is not in is tested in-process only")
		return
	}
	foreign := 4242
	for groupOfMine(foreign) {
		foreign++
	}
	os.Chown(state, -1, foreign)
	os.Chmod(state, 0o770|fs.ModeSetgid)
	refused("group " + strconv.Itoa(foreign) + " may write to it and is not one of your groups")
}

// groupOfMine reports whether gid is one of this process's groups.
func groupOfMine(gid int) bool {
	gs, _ := os.Getgroups()
	return gid == os.Getegid() || gid == os.Getgid() || slices.Contains(gs, gid)
}
