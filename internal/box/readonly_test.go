//go:build e2e && linux

package box

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// readOnlyScript tries, behind the walls, every write an agent could make
// to a state dir at $1, from its work dir (a task worktree inside it).
const readOnlyScript = `S=$1
try() { name=$1; shift; if why=$(sh -c "$*" 2>&1); then echo "$name:written"; else echo "$name:refused:$why" | tr -d '\n'; echo; fi; }
try state "echo forged > $S/state.json"
try relative "echo forged > ../../state.json"
try create "echo forged > $S/checkpoints/w1-T9.json"
try overwrite "echo forged > $S/checkpoints/w1-T1.json"
try rename "mv $S/checkpoints/w1-T1.json $S/checkpoints/w1-T1-complete.json"
try remove "rm $S/events.jsonl"
try events "echo forged >> $S/events.jsonl"
try handoff "echo forged > $S/handoff.md"
try handoffs "echo forged > $S/handoffs/h.md"
try other "echo forged > $S/worktrees/T2/x"
try remount "mount -o remount,rw,bind $S"
try spool "echo line >> $S/hooks/w1.spool.jsonl"
try hooklog "echo line >> $S/logs/hook.log"
try work "echo work > work.txt"
echo "token:$(cat $S/page-token)"
echo "state-read:$(cat $S/state.json)"
unshare -Urm sh -c "mount -o remount,rw,bind $S 2>/dev/null && echo nested-remount-ok; echo x 2>/dev/null >$S/state.json && echo nested-write-ok; mount -t tmpfs none /mnt && echo nested-mount-ok"`

// wantReadOnly is what readOnlyScript prints when the state dir is
// read-only behind the walls but its holes and the work dir.
var wantReadOnly = []string{"state:refused", "relative:refused", "create:refused", "overwrite:refused", "rename:refused", "remove:refused",
	"events:refused", "handoff:refused", "handoffs:refused", "other:refused", "remount:refused",
	"spool:written", "hooklog:written", "work:written", "token:\n", "state-read:STATE\n", "nested-mount-ok"}

// makeStateDir makes a state dir under root with a record, events, a
// handoff dir, the hook spool dir, hook.log, the page's token and a task
// worktree; it returns the state dir and the worktree.
func makeStateDir(t *testing.T, root string) (string, string) {
	t.Helper()
	s := filepath.Join(root, ".warden")
	wt := filepath.Join(s, "worktrees", "T1")
	for _, d := range []string{"checkpoints", "handoffs", "hooks", "logs", "worktrees/T1", "worktrees/T2"} {
		if err := os.MkdirAll(filepath.Join(s, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{"state.json": "STATE", "events.jsonl": "{}\n", "checkpoints/w1-T1.json": "{}",
		"logs/hook.log": "", "page-token": "TOKEN"} {
		if err := os.WriteFile(filepath.Join(s, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return s, wt
}

// runReadOnly runs readOnlyScript behind walls that make s read-only but
// its hooks/ and logs/hook.log, hide its page-token, in the work dir wt.
func runReadOnly(t *testing.T, s, wt string, start func(*exec.Cmd) error) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", readOnlyScript, "sh", s)
	cmd.Dir = wt
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	spec := WallSpec{Hide: []string{filepath.Join(s, "page-token")}, ReadOnly: []string{s, filepath.Join(s, "absent")},
		Writable: []string{filepath.Join(s, "hooks"), filepath.Join(s, "logs", "hook.log"), filepath.Join(s, "absent")}}
	if err := Walls(cmd, spec); err != nil {
		t.Fatal(err)
	}
	if err := start(cmd); err != nil {
		t.Fatalf("start: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("behind the walls: %v\n%s", err, out.String())
	}
	t.Logf("%s", out.String())
	return out.String()
}

func checkReadOnly(t *testing.T, s, out string) {
	t.Helper()
	for _, w := range wantReadOnly {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, ":refused:") && !strings.HasPrefix(line, "remount:") && !strings.Contains(line, "Read-only file system") {
			t.Errorf("refused, but not as read-only (EROFS): %s", line)
		}
	}
	for _, bad := range []string{"nested-remount-ok", "nested-write-ok", "TOKEN"} {
		if strings.Contains(out, bad) {
			t.Errorf("output has %q", bad)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(s, "state.json")); string(b) != "STATE" {
		t.Errorf("state.json is %q after the walls", b)
	}
	if b, _ := os.ReadFile(filepath.Join(s, "logs", "hook.log")); string(b) != "line\n" {
		t.Errorf("hook.log is %q: the hole was not written", b)
	}
}

// Behind the walls a state dir made read-only refuses every write (a
// record, its rename into an archive, state.json, events, the handoff),
// even from a user namespace the agent makes itself, while the hook spool,
// hook.log and the agent's work dir inside it stay writable, a hidden file
// in it reads empty, and the agent still mounts in a namespace of its own.
func TestWallsReadOnlyStateDir(t *testing.T) {
	if ok, why := WallsAvailable(); !ok {
		t.Fatalf("no walls here: %s", why)
	}
	s, wt := makeStateDir(t, t.TempDir())
	checkReadOnly(t, s, runReadOnly(t, s, wt, (*exec.Cmd).Start))
}

// A state dir on a mount with nosuid, nodev and noexec, made in another
// mount namespace than the walls' user namespace (so the kernel locks
// those flags), is made read-only all the same: the remount keeps them.
func TestWallsReadOnlyLockedFlags(t *testing.T) {
	if ok, why := WallsAvailable(); !ok {
		t.Fatalf("no walls here: %s", why)
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting the tmpfs needs root")
	}
	root := t.TempDir()
	done := make(chan string)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread, in its own mount namespace, ends with the goroutine
		var out string
		defer func() { done <- out }()
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			t.Errorf("unshare: %v", err)
			return
		}
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			t.Errorf("private: %v", err)
			return
		}
		if err := unix.Mount("none", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0700"); err != nil {
			t.Errorf("tmpfs: %v", err)
			return
		}
		s, wt := makeStateDir(t, root)
		out = runReadOnly(t, s, wt, (*exec.Cmd).Start)
		checkReadOnly(t, s, out)
	}()
	<-done
}

// A process whose work dir is the read-only directory itself writes
// nothing there through its work dir either: no hole, and the walls enter
// the work dir again once they stand (a work dir entered before the bind
// would reach the writable mount under it).
func TestWallsReadOnlyFromInside(t *testing.T) {
	if ok, why := WallsAvailable(); !ok {
		t.Fatalf("no walls here: %s", why)
	}
	s, _ := makeStateDir(t, t.TempDir())
	cmd := exec.Command("sh", "-c", `echo forged > state.json; echo "cwd:$?"; pwd`)
	cmd.Dir = s
	if err := Walls(cmd, WallSpec{ReadOnly: []string{s}}); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("behind the walls: %v", err)
	}
	if !strings.Contains(string(out), "Read-only file system") || !strings.Contains(string(out), "cwd:2") {
		t.Error("the work dir, the read-only directory itself, was written")
	}
	if b, _ := os.ReadFile(filepath.Join(s, "state.json")); string(b) != "STATE" {
		t.Errorf("state.json is %q after the walls", b)
	}
}

// Bubblewrap inside the walls, as a CLI's workspace-write sandbox runs it
// (the root read-only, the project dir — which holds the state dir, the
// shared workspace — bound writable, a user and PID namespace of its
// own): it starts, the project dir and the work dir take its writes, and
// the state dir under its writable bind stays read-only.
func TestWallsReadOnlyUnderBubblewrap(t *testing.T) {
	if ok, why := WallsAvailable(); !ok {
		t.Fatalf("no walls here: %s", why)
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skip("no bubblewrap here")
	}
	project := t.TempDir()
	s, wt := makeStateDir(t, project)
	inner := `echo x > ` + project + `/root.txt && echo bwrap-project-ok; echo x 2>/dev/null >` + s + `/state.json && echo bwrap-state-written; echo x > work.txt && echo bwrap-work-ok`
	cmd := exec.Command(bwrap, "--ro-bind", "/", "/", "--bind", project, project, "--dev", "/dev", "--proc", "/proc",
		"--unshare-user", "--unshare-pid", "--chdir", wt, "sh", "-c", inner)
	cmd.Dir = wt
	if err := Walls(cmd, WallSpec{ReadOnly: []string{s}}); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("bubblewrap behind the walls: %v", err)
	}
	for _, w := range []string{"bwrap-project-ok", "bwrap-work-ok"} {
		if !strings.Contains(string(out), w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(s, "state.json")); strings.Contains(string(out), "bwrap-state-written") || string(b) != "STATE" {
		t.Errorf("the state dir was written from inside bubblewrap: state.json %q", b)
	}
}
