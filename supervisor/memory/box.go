package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/box"
	"github.com/wardenhq/warden/runner"
)

// The box (sandbox = "box"): every agent session, task verify and notify
// command starts in a cgroup v2 group of its own — made under warden's group
// as memory_max's are, with or without the memory controller — and in a
// Landlock domain with the signal and abstract-socket scopes
// (internal/box). At its end the group is killed whole (cgroup.kill):
// whatever the process started, setsid, double-forked or with its
// environment cleared, is inside and dies with it.

// BoxStatus is what the box holds on this machine.
type BoxStatus struct {
	On        bool   // sandbox = "box"
	Cgroup    bool   // a cgroup per agent, killed whole at its end
	CgroupWhy string // why not
	Scopes    bool   // Landlock scopes
	ScopesWhy string // why not
	ABI       int    // the kernel's Landlock ABI (0: none)
	Walls     bool   // walls: warden's secrets hidden (internal/box walls_linux.go)
	WallsWhy  string // why not
}

// String is the line warden prints at start and validate prints: what the
// box enforces here and, when something is missing, what is then not
// enforced.
func (b BoxStatus) String() string {
	if !b.On {
		return `BOX: off (sandbox = "off"): not enforced: a process an agent leaves behind (setsid, env -i) can outlive a stop; ` +
			"an agent can signal warden and other agents and reach abstract unix sockets outside it, " +
			"and read the key warden seals its records with and the page's token"
	}
	onOff := func(on bool) string {
		if on {
			return "on"
		}
		return "off"
	}
	line := fmt.Sprintf("BOX: cgroup kill %s, landlock scopes %s (kernel Landlock ABI %d), walls %s", onOff(b.Cgroup), onOff(b.Scopes), b.ABI, onOff(b.Walls))
	var not []string
	if !b.Cgroup {
		not = append(not, "a process an agent leaves behind with its environment cleared or reparented to init can outlive a stop ("+b.CgroupWhy+")")
	}
	if !b.Scopes {
		not = append(not, "an agent can signal warden and other agents and reach abstract unix sockets outside it ("+b.ScopesWhy+")")
	}
	if !b.Walls {
		not = append(not, "an agent can read the key warden seals its records with and the page's token ("+b.WallsWhy+")")
	}
	if len(not) > 0 {
		line += ": not enforced: " + strings.Join(not, "; ")
	}
	return line
}

// ProbeBox says what the box would hold for a team with sandbox on: the
// cgroup part is tried for real (a group made and removed again), the
// Landlock part asked of the kernel. For validate.
func ProbeBox(log hclog.Logger, on bool) BoxStatus {
	st := BoxStatus{On: on}
	if !on {
		return st
	}
	cg, err := SetUpCgroups(log, nil)
	st.Cgroup, st.CgroupWhy = boxCgroup(cg, err)
	cg.Close()
	st.ABI, _ = box.ABI()
	st.Scopes, st.ScopesWhy = box.Available()
	st.Walls, st.WallsWhy = box.WallsAvailable()
	return st
}

// boxCgroup says whether cg can hold a box: set up, with cgroup.kill
// (Linux 5.14).
func boxCgroup(cg *Cgroups, err error) (bool, string) {
	if err != nil {
		return false, err.Error()
	}
	if _, err := os.Stat(filepath.Join(cg.base, "cgroup.kill")); err != nil {
		return false, "the kernel has no cgroup.kill (Linux 5.14)"
	}
	return true, ""
}

// Box is the status of the team's box, once Start ran.
func (m *Memory) Box() BoxStatus {
	if m == nil {
		return BoxStatus{}
	}
	return m.box
}

// CommandBox makes the box of one command warden runs beside its agents (a
// task's verify, a notify command), named label; nil with the box off.
// Start it there with the box's Start; Close kills what is left in it.
func (m *Memory) CommandBox(label string) runner.CommandBox {
	if m == nil || !m.box.On {
		return nil
	}
	m.Start()
	g := &Group{scoped: m.box.Scopes}
	if m.box.Walls {
		g.walls = m.walls
	}
	if m.box.Cgroup {
		var err error
		if g, err = m.Cgroups.Group(label, 0); err != nil {
			m.log.Error("no cgroup for the command: a stop finds what it leaves by its tag only", "command", label, "error", err)
			g = &Group{}
		}
		g.scoped = m.box.Scopes
		if m.box.Walls {
			g.walls = m.walls
		}
	}
	return g
}

// Start starts cmd in the group's box: its cgroup, and the Landlock scopes
// when the box has them.
func (g *Group) Start(cmd *exec.Cmd) error {
	if g == nil {
		return cmd.Start()
	}
	return runner.StartIn(cmd, g.rc, g.scoped, g.walls)
}

// Close kills what is left in the group and removes it.
func (g *Group) Close() error { return g.Remove() }

// Walls are the walls of the group's processes (empty: none).
func (g *Group) Walls() box.WallSpec {
	if g == nil {
		return box.WallSpec{}
	}
	return g.walls
}

// Scoped says whether the group's processes start in a Landlock domain.
func (g *Group) Scoped() bool { return g != nil && g.scoped }

// Limits says whether the group holds memory_max (a memory.max written):
// otherwise the RSS watch does.
func (g *Group) Limits() bool { return g != nil && g.limits }

// KillStaleBoxes kills what is left in the boxes of a dead warden (pid):
// the groups it made under the cgroup v2 root (warden.PID), every process
// in them included — an agent's escapee that shed its tag too — and removes
// them. Nothing when it made none. A box holding one of keep (a session
// taken back from the holder, which MoveInto moves out) is left as it is.
// It returns how many groups it killed.
func KillStaleBoxes(ctx context.Context, pid int, keep ...int) (int, error) {
	mount, err := cgroup2Mount()
	if err != nil {
		return 0, nil
	}
	base := filepath.Join(mount, "warden."+strconv.Itoa(pid))
	dirs, err := os.ReadDir(base)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("the dead warden's cgroups %s: %w", base, err)
	}
	n := 0
	var errs []error
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		g := &Group{dir: filepath.Join(base, d.Name())}
		procs := words(filepath.Join(g.dir, "cgroup.procs"))
		if slices.ContainsFunc(keep, func(k int) bool { return slices.Contains(procs, strconv.Itoa(k)) }) {
			continue
		}
		if len(procs) > 0 {
			n++
		}
		if err := g.Remove(); err != nil {
			errs = append(errs, err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	if err := os.Remove(base); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("remove cgroup %s: %w", base, err))
	}
	return n, errors.Join(errs...)
}
