//go:build e2e

package runner

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wardenhq/warden/testrig/proctest"
	"golang.org/x/sys/unix"
)

// A process started with a Cgroup is in that group from its first
// instruction, and so is everything it starts. On a real cgroup v2
// hierarchy: the test makes a group of its own under this process's, which
// needs root (or a delegated group) and a cgroup2 mount — one is mounted
// in a temporary directory when none is.
func TestStartInACgroup(t *testing.T) {
	dir, rel := testCgroup(t)
	cg, err := OpenCgroup(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cg.Close()
	cfg := fakeConfig("grandchild:idle:idle")
	cfg.Cgroup = cg
	p, out := start(t, cfg)
	out.waitFor(t, "grandchild ")
	var kids []int
	for deadline := time.Now().Add(5 * time.Second); len(kids) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		kids = proctest.Children(p.Pid())
	}
	if len(kids) == 0 {
		t.Fatal("the agent started no grandchild")
	}
	for _, pid := range append([]int{p.Pid()}, kids...) {
		if got := cgroupOf(t, pid); got != rel {
			t.Errorf("pid %d is in cgroup %q, want %q", pid, got, rel)
		}
	}
	if got := cgroupOf(t, os.Getpid()); got == rel {
		t.Errorf("the test process itself moved into %q", rel)
	}
	procs, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if n := len(strings.Fields(string(procs))); n != 1+len(kids) {
		t.Errorf("cgroup.procs holds %d processes, want %d: %q", n, 1+len(kids), procs)
	}
	p.Signal(syscall.SIGKILL)
	waitDone(t, p)
}

// testCgroup makes an empty cgroup v2 group for the test under this
// process's own and returns its directory and its path as /proc/PID/cgroup
// shows it; it is removed at the end of the test.
func testCgroup(t *testing.T) (dir, rel string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("making a cgroup needs root here (or a delegated cgroup v2 group, which this test does not look for)")
	}
	mount := cgroup2Mount()
	if mount == "" {
		mount = t.TempDir()
		if err := unix.Mount("none", mount, "cgroup2", 0, ""); err != nil {
			t.Skipf("no cgroup2 hierarchy is mounted and mounting one failed: %v", err)
		}
		t.Cleanup(func() { unix.Unmount(mount, unix.MNT_DETACH) })
	}
	self := cgroupOf(t, os.Getpid())
	rel = filepath.Join(self, "warden-runner-test-"+strconv.Itoa(os.Getpid()))
	dir = filepath.Join(mount, rel)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatalf("make a cgroup: %v", err)
	}
	t.Cleanup(func() {
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			err := os.Remove(dir) // EBUSY until the last process is reaped
			if err == nil || time.Now().After(deadline) {
				if err != nil {
					t.Errorf("cgroup %s not removed: %v", dir, err)
				}
				return
			}
		}
	})
	return dir, rel
}

// cgroup2Mount is where a cgroup2 hierarchy is mounted, or "".
func cgroup2Mount() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if f := strings.Fields(post); ok && len(f) > 0 && f[0] == "cgroup2" {
			if g := strings.Fields(pre); len(g) > 4 {
				return g[4]
			}
		}
	}
	return ""
}

// cgroupOf is process pid's cgroup v2 path ("0::PATH" of /proc/PID/cgroup).
func cgroupOf(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(l, "0::"); ok {
			return p
		}
	}
	t.Fatalf("pid %d has no cgroup v2 line: %q", pid, b)
	return ""
}
