//go:build !e2e

package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/safefile"
)

func TestOpenCreatesPrivateDirs(t *testing.T) {
	root := filepath.Join(t.TempDir(), "team", ".warden")
	d, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{root, d.Logs(), d.Checkpoints()} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want a 0700 directory", p, fi, err)
		}
	}
}

// A directory others may write to, or one that holds someone else's files,
// is never taken over (nor its mode changed).
func TestOpenRefusesSharedOrForeignDirs(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(shared, 0o700)
	os.Chmod(shared, 0o777|os.ModeSticky)
	if _, err := Open(shared); err == nil || !strings.Contains(err.Error(), "other users") {
		t.Errorf("a 1777 directory was accepted: %v", err)
	}
	if fi, _ := os.Stat(shared); fi.Mode()&os.ModeSticky == 0 {
		t.Error("the sticky bit of a shared directory was removed")
	}
	busy := t.TempDir()
	os.WriteFile(filepath.Join(busy, "thesis.tex"), []byte("mine"), 0o644)
	os.Chmod(busy, 0o755)
	if _, err := Open(busy); err == nil || !strings.Contains(err.Error(), "no warden state") {
		t.Errorf("a directory of other files was accepted: %v", err)
	}
	if fi, _ := os.Stat(busy); fi.Mode().Perm() != 0o755 {
		t.Errorf("its mode was changed to %v", fi.Mode().Perm())
	}
	if _, err := Open("/"); err == nil {
		t.Error("state_dir = / was accepted")
	}
}

// Planted symlinks are never followed out of the state dir: the lock, the
// event log and the logs directory.
func TestPlantedSymlinksAreRefused(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(outside, []byte("precious\n"), 0o600)
	os.Symlink(outside, filepath.Join(root, "lock"))
	if _, err := Open(root); err == nil || !errors.Is(err, syscall.ELOOP) || !strings.Contains(err.Error(), filepath.Join(root, "lock")) {
		t.Errorf("a state dir with a symlink at lock was opened: %v", err)
	}
	os.Remove(filepath.Join(root, "lock"))
	d, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	os.Symlink(outside, filepath.Join(root, "lock")) // planted after the checks
	if err := d.Lock(); err == nil || !errors.Is(err, syscall.ELOOP) {
		t.Errorf("lock through a symlink: %v", err)
	}
	os.Symlink(outside, d.Events())
	if _, err := OpenEventLog(hclog.NewNullLogger(), d.Events(), time.Now); err == nil {
		t.Error("events.jsonl opened through a symlink")
	}
	if b, _ := os.ReadFile(outside); string(b) != "precious\n" {
		t.Errorf("the file outside was changed: %q", b)
	}
	root2 := t.TempDir()
	os.WriteFile(filepath.Join(root2, "state.json"), []byte("{}"), 0o600) // a warden state dir
	os.Symlink(t.TempDir(), filepath.Join(root2, "logs"))
	if _, err := Open(root2); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("logs/ as a symlink was accepted: %v", err)
	}
}

// A failed write of events.jsonl is reported once, and once more when it
// works again; it never reaches the caller.
func TestEventWriteFailureReportedOnce(t *testing.T) {
	root := t.TempDir()
	l, err := OpenEventLog(hclog.NewNullLogger(), filepath.Join(root, "events.jsonl"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	var reports []error
	l.OnError = func(err error) { reports = append(reports, err) }
	good := l.f
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here: cannot make a write fail with ENOSPC")
	}
	l.f = full
	for i := 0; i < 5; i++ {
		l.Emit("agent_started", "a", "")
	}
	l.f = good
	l.Emit("agent_started", "a", "")
	l.Emit("agent_started", "a", "")
	full.Close()
	l.Close()
	if len(reports) != 2 || !errors.Is(reports[0], syscall.ENOSPC) || reports[1] != nil {
		t.Fatalf("reports %v, want [ENOSPC, nil]", reports)
	}
}
func TestWorktreePaths(t *testing.T) {
	l := NewLayout("/st")
	if got := l.Worktrees(); got != "/st/worktrees" {
		t.Errorf("Worktrees() = %q", got)
	}
	if got, err := l.Worktree("T060"); err != nil || got != filepath.Join("/st", "worktrees", "T060") {
		t.Errorf("Worktree(T060) = %q, %v", got, err)
	}
	for _, bad := range []string{"", ".", "..", "a/b", "../T1", "/abs"} {
		if got, err := l.Worktree(bad); err == nil {
			t.Errorf("Worktree(%q) = %q, want an error", bad, got)
		}
	}
	if _, err := l.HookSpool("a/b"); err == nil {
		t.Error("HookSpool(a/b) accepted")
	}
}

// A state dir as Kubernetes' fsGroup leaves it on each mount — the
// directories g+rwx and setgid, the files g+rw, all of the pod's group —
// is opened when that group is one of this process's groups, and made
// private again: the state dir and the directories warden opens 0700, a
// file it appends to 0600. One whose group is not ours is refused as it is.
func TestOpenTakesAVolumeOfItsOwnGroup(t *testing.T) {
	root := filepath.Join(t.TempDir(), "state")
	for _, d := range []string{root, filepath.Join(root, "logs"), filepath.Join(root, "checkpoints")} {
		os.Mkdir(d, 0o700)
		os.Chown(d, -1, os.Getegid())
		os.Chmod(d, 0o770|os.ModeSetgid)
	}
	for _, f := range []string{"state.json", "events.jsonl"} {
		os.WriteFile(filepath.Join(root, f), []byte("{}\n"), 0o600)
		os.Chmod(filepath.Join(root, f), 0o660)
	}
	d, err := Open(root)
	if err != nil {
		t.Fatalf("a 2770 state dir of our group %d: %v", os.Getegid(), err)
	}
	for _, p := range []string{root, d.Logs(), d.Checkpoints()} {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o700 || fi.Mode()&os.ModeSetgid != 0 {
			t.Errorf("%s is %v, want drwx------", p, fi.Mode())
		}
	}
	f, err := OpenPrivate(root, filepath.Join(root, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, _ := os.Stat(filepath.Join(root, "events.jsonl")); fi.Mode().Perm() != 0o600 {
		t.Errorf("events.jsonl appended to is %v, want -rw-------", fi.Mode())
	}

	os.Chmod(root, 0o770|os.ModeSetgid)
	gid := 4242
	if os.Geteuid() == 0 {
		for gid == os.Getegid() || gid == os.Getgid() {
			gid++
		}
		os.Chown(root, -1, gid) // root may chgrp to a group it is not in
	} else {
		gid = os.Getegid()
		defer safefile.PretendGroups([]int{gid + 4242})()
	}
	if _, err := Open(root); !errors.Is(err, safefile.ErrShared) || !strings.Contains(err.Error(), fmt.Sprintf("group %d may write", gid)) {
		t.Errorf("a 2770 state dir of group %d, not ours: %v", gid, err)
	}
	if fi, _ := os.Stat(root); fi.Mode().Perm() != 0o770 || fi.Mode()&os.ModeSetgid == 0 {
		t.Errorf("the refused state dir's mode changed to %v", fi.Mode())
	}
}
