//go:build !e2e

package memory

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/supervisor/config"
)

// A session's group is limited as the kernel's interface files say: its
// memory.max in bytes, memory.oom.group 1 (an OOM kill takes the whole
// tree); memory.events gives its OOM kill count; Remove takes it away.
// On a stand-in directory (the files a cgroup would have): this machine
// has no cgroup v2 memory controller (TestNoCgroupMemoryOnAHybridHierarchy).
func TestCgroupGroupWritesItsLimit(t *testing.T) {
	c := &Cgroups{base: t.TempDir(), limit: true, log: hclog.NewNullLogger()}
	g, err := c.Group("w1", 4*config.GB)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(g.Dir()) != "agent-w1-1" || g.Runner() == nil {
		t.Errorf("group %s, runner %v", g.Dir(), g.Runner())
	}
	for file, want := range map[string]string{"memory.max": "4000000000", "memory.oom.group": "1"} {
		if b, _ := os.ReadFile(filepath.Join(g.Dir(), file)); string(b) != want {
			t.Errorf("%s = %q, want %q", file, b, want)
		}
	}
	if _, ok := g.OOMKills(); ok {
		t.Error("OOMKills read a memory.events that is not there")
	}
	events := "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 1\n"
	os.WriteFile(filepath.Join(g.Dir(), "memory.events"), []byte(events), 0o600)
	if n, ok := g.OOMKills(); !ok || n != 1 {
		t.Errorf("OOMKills = %d, %v, want 1", n, ok)
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(g.Dir()); !os.IsNotExist(err) {
		t.Errorf("the group is still there: %v", err)
	}
	g2, _ := c.Group("w1", 0) // no limit: no limit files
	if _, err := os.Stat(filepath.Join(g2.Dir(), "memory.max")); !os.IsNotExist(err) {
		t.Errorf("memory.max written without memory_max: %v", err)
	}
	g2.Remove()
}

// On a hybrid hierarchy — the memory controller bound to cgroup v1, as on
// the development machines — SetUpCgroups says so, and makes nothing.
func TestNoCgroupMemoryOnAHybridHierarchy(t *testing.T) {
	var st unix.Statfs_t
	if unix.Statfs("/sys/fs/cgroup/memory", &st) != nil || st.Type != unix.CGROUP_SUPER_MAGIC {
		t.Skip("the memory controller is not bound to a cgroup v1 hierarchy here: this test checks a hybrid hierarchy only")
	}
	mount, _ := cgroup2Mount()
	cg, err := SetUpCgroups(hclog.NewNullLogger(), []string{"memory"})
	if err == nil {
		cg.Close()
		t.Fatal("cgroups set up with the memory controller bound to cgroup v1")
	}
	t.Logf("why not: %v", err)
	if mount != "" && !strings.Contains(err.Error(), "the memory controller is not available in warden's cgroup v2 group") ||
		!strings.Contains(err.Error(), "it is bound to a cgroup v1 hierarchy (/sys/fs/cgroup/memory)") {
		t.Errorf("error %q", err)
	}
	if mount != "" { // this process's group (others' runs make theirs meanwhile)
		if own := filepath.Join(mount, "warden."+strconv.Itoa(os.Getpid())); func() bool { _, err := os.Stat(own); return err == nil }() {
			t.Errorf("group made: %s", own)
		}
	}
}

func TestKernelAtLeast(t *testing.T) {
	if !kernelAtLeast(2, 6) || kernelAtLeast(999, 0) {
		t.Error("kernelAtLeast misreads the running kernel's release")
	}
}
