package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
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
