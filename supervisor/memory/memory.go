package memory

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/box"
	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/state"
)

// Memory is what the team's agents share of the machine's memory: the
// admission (max_running, memory_floor: admission.go), the RSS watch that
// samples every running session's process tree (the CLIs' footprints,
// memory_max where no cgroup holds it, the OOM evidence: rss.go), and the
// cgroups that hold memory_max where warden can make them (cgroup.go).
type Memory struct {
	*Admission
	// SampleEvery is how often the running sessions' trees are read.
	SampleEvery time.Duration
	// TreeRSS reads the RSS of process trees (runner.TreeRSS), OOMKills
	// the kernel's count of OOM kills (/proc/vmstat); a test replaces them.
	TreeRSS  func(roots []int) (map[int]int64, error)
	OOMKills func() (int64, error)
	// Cgroups holds memory_max, or nil: then CgroupWhy says why not, and
	// the RSS watch holds it. Set both before the team runs to skip
	// SetUpCgroups (tests).
	Cgroups   *Cgroups
	CgroupWhy string
	// box is what the team's box (sandbox = "box") holds here, once
	// started (box.go).
	box BoxStatus
	// walls are the box's walls of every process of an agent: the paths
	// hidden (its record key, the page's token: Hide), the directories
	// read-only and their writable holes (the state dir: ReadOnly).
	walls box.WallSpec

	cfg      *config.Team
	log      hclog.Logger
	clock    clock.Clock
	sampling bool // memory_floor or a memory_max: the trees are read
	limits   bool // some agent has memory_max
	once     sync.Once
	done     chan struct{}
	wg       sync.WaitGroup
	errOnce  sync.Once
}

// DefaultSampleEvery is how often the RSS watch reads the running trees.
const DefaultSampleEvery = 2 * time.Second

// NewMemory returns the memory services of team cfg. Nothing runs before
// the first agent asks for its turn.
func NewMemory(cfg *config.Team, clk clock.Clock, log hclog.Logger) *Memory {
	log = log.Named("memory")
	m := &Memory{Admission: NewAdmission(cfg.MaxRunning, cfg.MemoryFloor, clk, log), SampleEvery: DefaultSampleEvery,
		TreeRSS: runner.TreeRSS, OOMKills: ReadOOMKills, cfg: cfg, log: log, clock: clk, done: make(chan struct{})}
	for _, a := range cfg.Agents {
		m.limits = m.limits || a.MemoryMax > 0
	}
	m.sampling = cfg.MemoryFloor > 0 || m.limits
	m.box.On = cfg.Sandbox == config.SandboxBox
	return m
}

// Start sets up the cgroups (when an agent has memory_max) and the RSS
// watch (when anything needs it), once.
func (m *Memory) Start() {
	m.once.Do(func() {
		if m.limits && m.Cgroups == nil && m.CgroupWhy == "" {
			cg, err := SetUpCgroups(m.log, []string{"memory"})
			if err != nil {
				m.CgroupWhy = err.Error()
				m.log.Warn("memory_max is held by the RSS watch, not a cgroup", "why", m.CgroupWhy)
			}
			m.Cgroups = cg
		}
		if m.box.On {
			m.startBox()
		}
		if m.sampling {
			m.wg.Add(1)
			go m.watchLoop()
		}
	})
}

// Close stops the RSS watch and removes warden's cgroup.
func (m *Memory) Close() {
	if m == nil {
		return
	}
	m.once.Do(func() {}) // nothing starts after Close
	select {
	case <-m.done:
	default:
		close(m.done)
	}
	m.wg.Wait()
	m.Cgroups.Close()
}

// Status is the team's memory for the page, nil when the team file sets
// none of its keys.
func (m *Memory) Status() *state.MemoryStatus {
	if m == nil || m.MaxRunning == 0 && !m.sampling {
		return nil
	}
	running, waiting, avail := m.Counts()
	st := &state.MemoryStatus{MaxRunning: m.MaxRunning, Floor: m.Floor, Running: running, Waiting: waiting,
		Available: avail, Footprints: m.footprints()}
	if m.limits {
		st.Limit, st.LimitNote = "cgroup", ""
		if m.Cgroups == nil || !m.Cgroups.limit {
			st.Limit, st.LimitNote = "rss_watch", m.CgroupWhy
		}
	}
	return st
}

// Group makes the cgroup of a session of agent a — its box, and where it
// holds memory_max — or nil: no box, no memory_max, no cgroups, or one
// that could not be made (the RSS watch holds memory_max then). With the
// box on but no cgroup here, the group has no directory and only scopes.
func (m *Memory) Group(a *config.Agent) *Group {
	if m == nil {
		return nil
	}
	var g *Group
	if m.Cgroups != nil && (a.MemoryMax > 0 || m.box.On) {
		var err error
		if g, err = m.Cgroups.Group(a.Name, a.MemoryMax); err != nil {
			m.log.Error("no cgroup for the session: the RSS watch holds its memory_max, a stop finds what it leaves by its tag",
				"agent", a.Name, "error", err)
			g = nil
		}
	}
	if m.box.On && m.box.Scopes {
		if g == nil {
			g = &Group{}
		}
		g.scoped = true
	}
	if m.box.On && m.box.Walls {
		if g == nil {
			g = &Group{}
		}
		g.walls = m.walls
	}
	return g
}

// Hide adds paths the box's walls hide from everything an agent runs (the
// key warden seals records with, the page's token). Call it before the
// first session starts.
func (m *Memory) Hide(paths ...string) {
	if m != nil {
		m.walls.Hide = append(m.walls.Hide, paths...)
	}
}

// ReadOnly adds directories everything an agent runs sees read-only behind
// the box's walls (the state dir), and the holes in them that stay
// writable (box.WallSpec). Call it before the first session starts.
func (m *Memory) ReadOnly(dirs []string, holes ...string) {
	if m != nil {
		m.walls.ReadOnly = append(m.walls.ReadOnly, dirs...)
		m.walls.Writable = append(m.walls.Writable, holes...)
	}
}

// startBox sets up the box: the cgroups memory_max made serve it too;
// without them (no memory_max, or no memory controller in cgroup v2)
// groups without controllers; and the Landlock scopes where the kernel has
// them. What is missing is logged and said by Box.
func (m *Memory) startBox() {
	if m.Cgroups == nil {
		cg, err := SetUpCgroups(m.log, nil)
		m.box.Cgroup, m.box.CgroupWhy = boxCgroup(cg, err)
		if err == nil {
			m.Cgroups = cg
		}
	} else {
		m.box.Cgroup, m.box.CgroupWhy = boxCgroup(m.Cgroups, nil)
	}
	m.box.ABI, _ = box.ABI()
	m.box.Scopes, m.box.ScopesWhy = box.Available()
	m.box.Walls, m.box.WallsWhy = box.WallsAvailable()
	m.log.Info("the agents' box", "status", m.box.String())
}

// OOMCount is the kernel's OOM kill count now; ok is false when unknown.
func (m *Memory) OOMCount() (int64, bool) {
	if m == nil || m.OOMKills == nil {
		return 0, false
	}
	n, err := m.OOMKills()
	return n, err == nil
}

// ReadMemAvailable reads MemAvailable from /proc/meminfo, in bytes.
func ReadMemAvailable() (int64, error) {
	return procField("/proc/meminfo", "MemAvailable:", config.KiB)
}

// ReadOOMKills reads the kernel's count of OOM kills since boot, every
// cgroup's included (/proc/vmstat oom_kill, Linux 4.13).
func ReadOOMKills() (int64, error) { return procField("/proc/vmstat", "oom_kill ", 1) }

// procField reads the number after key in a /proc file of "key value
// [kB]" lines, times unit.
func procField(path, key string, unit int64) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s: %s%q: %w", path, key, v, err)
			}
			return n * unit, nil
		}
	}
	return 0, fmt.Errorf("%s has no %q", path, strings.TrimSpace(key))
}
