package memory

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/internal/box"
	"github.com/wardenhq/warden/runner"
)

// Cgroups makes a cgroup v2 group for each session of an agent with
// memory_max, under a group warden owns with the memory controller enabled
// for its children: the agent starts in it (CLONE_INTO_CGROUP), the kernel
// holds it to memory.max (memory.oom.group set: an OOM kill takes the
// whole tree; memory.swap.max 0: it does not swap past the limit), its
// memory.events count the OOM kills, and cgroup.kill ends
// everything in it when the session is over.
//
// Warden owns a group when it is root in the cgroup v2 root (its namespace's:
// a container's): it makes warden.PID there. Or when its own group was
// delegated to it — systemd-run --user --scope -p Delegate=yes warden run …
// — and holds warden alone: warden moves itself into a leaf of it
// (warden-supervisor, as cgroup v2 keeps processes out of a group whose
// controllers are enabled for its children) and makes the agents' groups
// beside it. Anywhere else SetUpCgroups says why not, and memory_max is held
// by the RSS watch.
type Cgroups struct {
	base  string // where the agents' groups are made
	made  bool   // base is warden's own make (removed at Close)
	limit bool   // the memory controller is enabled for them
	seq   atomic.Uint64
	log   hclog.Logger
}

// Group is one session's cgroup.
type Group struct {
	dir    string // "": no cgroup (a box of Landlock scopes alone)
	rc     *runner.Cgroup
	limits bool         // memory.max written
	walls  box.WallSpec // the walls (box.go)
	scoped bool         // started in a Landlock domain (box.go)
}

// SetUpCgroups finds or makes the group the agents' groups go under, with
// the controllers need ("memory") enabled for them; the error says why
// there is none. Without "memory" the groups only hold the agents' processes
// (no memory.max): a test of the placement where no memory controller is.
func SetUpCgroups(log hclog.Logger, need []string) (*Cgroups, error) {
	mount, err := cgroup2Mount()
	if err != nil {
		return nil, err
	}
	self, err := ownCgroup()
	if err != nil {
		return nil, err
	}
	if !kernelAtLeast(5, 7) {
		return nil, errors.New("the kernel is older than 5.7: it cannot start a process in a cgroup (CLONE_INTO_CGROUP)")
	}
	dir := filepath.Join(mount, self)
	have := words(filepath.Join(dir, "cgroup.controllers"))
	for _, c := range need {
		if !contains(have, c) {
			return nil, fmt.Errorf("the %s controller is not available in warden's cgroup v2 group %s (it has: %s)%s",
				c, dir, orNone(have), v1Hint(c))
		}
	}
	cg := &Cgroups{log: log, limit: contains(need, "memory")}
	if self == "/" {
		cg.base, cg.made = filepath.Join(dir, "warden."+strconv.Itoa(os.Getpid())), true
		if err := os.Mkdir(cg.base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("make cgroup %s: %w", cg.base, err)
		}
		if err := enable(dir, need); err != nil {
			_ = os.Remove(cg.base)
			return nil, err
		}
	} else {
		if err := cg.takeDelegated(dir, need); err != nil {
			return nil, err
		}
	}
	if err := enable(cg.base, need); err != nil {
		cg.Close()
		return nil, err
	}
	log.Info("agents' cgroups set up", "under", cg.base, "controllers", orNone(need))
	return cg, nil
}

// takeDelegated makes warden's own group dir the base: warden moves into a
// leaf of it, then enables need for its children.
func (c *Cgroups) takeDelegated(dir string, need []string) error {
	pid := strconv.Itoa(os.Getpid())
	if procs := words(filepath.Join(dir, "cgroup.procs")); len(procs) != 1 || procs[0] != pid {
		return fmt.Errorf("warden's cgroup %s holds other processes too (%d in all): run warden in a group of its own "+
			"with the memory controller delegated to you (systemd-run --user --scope -p Delegate=yes warden run …)", dir, len(procs))
	}
	leaf := filepath.Join(dir, "warden-supervisor")
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("warden's cgroup %s is not delegated to it: %w", dir, err)
	}
	if err := os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(pid), 0); err != nil {
		_ = os.Remove(leaf)
		return fmt.Errorf("warden cannot move itself into %s: %w", leaf, err)
	}
	if err := enable(dir, need); err != nil {
		_ = os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(pid), 0) // back where it was
		_ = os.Remove(leaf)
		return err
	}
	c.base = dir
	return nil
}

// enable turns the controllers on for dir's children.
func enable(dir string, ctrls []string) error {
	for _, c := range ctrls {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+"+c), 0); err != nil {
			return fmt.Errorf("enable the %s controller for the groups in %s: %w", c, dir, err)
		}
	}
	return nil
}

// maxGroupTries bounds the numbers Group skips over groups that exist.
const maxGroupTries = 1 << 16

// Group makes the cgroup of one session of agent, limited to memoryMax
// bytes (0: no limit).
func (c *Cgroups) Group(agent string, memoryMax int64) (*Group, error) {
	var dir string
	for tries := 0; ; tries++ {
		dir = filepath.Join(c.base, "agent-"+agent+"-"+strconv.FormatUint(c.seq.Add(1), 10))
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			break
		}
		// One the earlier image of this process made (`warden upgrade`
		// execs in place: the same pid, the same base) holds a session
		// taken back: never ours to reuse, the next number is.
		if !errors.Is(err, os.ErrExist) || tries >= maxGroupTries {
			return nil, fmt.Errorf("make cgroup %s: %w", dir, err)
		}
	}
	g := &Group{dir: dir, limits: memoryMax > 0 && c.limit}
	if g.limits {
		for file, value := range map[string]string{"memory.max": strconv.FormatInt(memoryMax, 10), "memory.oom.group": "1"} {
			if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0); err != nil {
				g.Remove()
				return nil, fmt.Errorf("cgroup %s: write %s: %w", dir, file, err)
			}
		}
		// No swap beyond it (a kernel without swap accounting has no such
		// file): memory_max is what the agent holds, not what it pages out.
		if _, err := os.Stat(filepath.Join(dir, "memory.swap.max")); err == nil {
			if err := os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0); err != nil {
				c.log.Warn("memory.swap.max not set: the agent may swap past memory_max", "group", dir, "error", err)
			}
		}
	}
	rc, err := runner.OpenCgroup(dir)
	if err != nil {
		g.Remove()
		return nil, err
	}
	g.rc = rc
	return g, nil
}

// Runner is the group to start the session's process in (nil: none).
func (g *Group) Runner() *runner.Cgroup {
	if g == nil {
		return nil
	}
	return g.rc
}

// Dir is the group's directory.
func (g *Group) Dir() string { return g.dir }

// OOMKills is the kernel's count of OOM kills in the group (memory.events
// oom_kill); ok is false when it cannot be read.
func (g *Group) OOMKills() (n int64, ok bool) {
	if g == nil || g.dir == "" {
		return 0, false
	}
	b, err := os.ReadFile(filepath.Join(g.dir, "memory.events"))
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, found := strings.CutPrefix(l, "oom_kill "); found {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// Remove kills whatever is left in the group (cgroup.kill, Linux 5.14) and
// removes it, waiting up to 2 s for the kernel to let it go.
func (g *Group) Remove() error {
	if g == nil || g.dir == "" {
		return nil
	}
	if g.rc != nil {
		_ = g.rc.Close()
	}
	_ = os.WriteFile(filepath.Join(g.dir, "cgroup.kill"), []byte("1"), 0)
	var err error
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if err = unix.Rmdir(g.dir); err == nil || errors.Is(err, unix.ENOENT) || time.Now().After(deadline) {
			break
		}
		if !errors.Is(err, unix.EBUSY) {
			var st unix.Statfs_t
			if errors.Is(err, unix.ENOTEMPTY) && unix.Statfs(g.dir, &st) == nil && st.Type != unix.CGROUP2_SUPER_MAGIC {
				// Not a cgroup (a test's stand-in): its files are files.
				err = os.RemoveAll(g.dir)
			}
			break
		}
	}
	if err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("remove cgroup %s: %w", g.dir, err)
	}
	return nil
}

// Base is the group the agents' groups are made in.
func (c *Cgroups) Base() string { return c.base }

// Close removes the group warden made (its agents' groups are gone).
func (c *Cgroups) Close() {
	if c == nil || !c.made {
		return
	}
	if err := unix.Rmdir(c.base); err != nil && !errors.Is(err, unix.ENOENT) {
		c.log.Warn("cgroup not removed", "dir", c.base, "error", err)
	}
}

// cgroup2Mount is where the cgroup v2 hierarchy is mounted (mountinfo).
func cgroup2Mount() (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", fmt.Errorf("no cgroup v2 hierarchy: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fs, fields := strings.Fields(post), strings.Fields(pre)
		if ok && len(fs) > 0 && fs[0] == "cgroup2" && len(fields) > 4 && fields[3] == "/" {
			return fields[4], nil
		}
	}
	return "", errors.New("no cgroup v2 hierarchy is mounted")
}

// ownCgroup is warden's cgroup v2 path ("0::PATH" of /proc/self/cgroup).
func ownCgroup() (string, error) { return cgroupOf("self") }

// cgroupOf is the cgroup v2 path of a process ("0::PATH" of
// /proc/PID/cgroup; pid "self" for warden's own).
func cgroupOf(pid string) (string, error) {
	b, err := os.ReadFile("/proc/" + pid + "/cgroup")
	if err != nil {
		return "", fmt.Errorf("the cgroup of %s: %w", pid, err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(l, "0::"); ok && strings.HasPrefix(p, "/") {
			return p, nil
		}
	}
	return "", fmt.Errorf("process %s is in no cgroup v2 group", pid)
}

// v1Hint says when the controller is bound to a cgroup v1 hierarchy (a
// hybrid hierarchy, as on the development machines).
func v1Hint(ctrl string) string {
	var st unix.Statfs_t
	dir := "/sys/fs/cgroup/" + ctrl
	if unix.Statfs(dir, &st) == nil && st.Type == unix.CGROUP_SUPER_MAGIC {
		return "; it is bound to a cgroup v1 hierarchy (" + dir + ")"
	}
	return ""
}

// kernelAtLeast reports whether the running kernel is major.minor or newer.
func kernelAtLeast(major, minor int) bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	rel := unix.ByteSliceToString(u.Release[:])
	parts := strings.SplitN(rel, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

func words(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "no controller"
	}
	return strings.Join(list, ", ")
}
