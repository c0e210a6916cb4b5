// Package overlap sees two open tasks whose latest records name a common
// path (issue 37: "overlap seen while it happens"): every checkpoint names
// its Files Modified, and where two tasks' latest lists meet, their work
// will meet again at the merge. The Detector says so once per pair of
// tasks and path set: a path newly in common says it again, the same
// paths do not.
package overlap

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Party is one task of an overlap and the agent whose record named the
// paths.
type Party struct {
	Task  string
	Agent string
}

// Overlap is two tasks whose latest records name common paths. First named
// them before Later (Later's record named the newest of them second).
type Overlap struct {
	First, Later Party
	Paths        []string // every path the two latest records share, sorted
	New          []string // those not said before for this pair, sorted
}

// Detector keeps each open task's latest record's paths and what was said
// for each pair of tasks. Safe for concurrent use.
type Detector struct {
	mu     sync.Mutex
	seq    int64
	tasks  map[string]*taskPaths
	said   map[pair]map[string]bool
	orders []string // task ids in the order they were first seen: stable output
}

// taskPaths is one task's latest record: its agent, its paths, and when
// (in records seen) the task first named each of them in a row.
type taskPaths struct {
	agent string
	since map[string]int64
}

type pair struct{ a, b string } // a < b

func pairOf(x, y string) pair {
	if x > y {
		x, y = y, x
	}
	return pair{x, y}
}

// New returns an empty detector.
func New() *Detector {
	return &Detector{tasks: map[string]*taskPaths{}, said: map[pair]map[string]bool{}}
}

// Record takes task's latest record (by agent, naming paths, already
// Clean'd) and returns the overlaps it makes with the other tasks' latest
// records that were not said before: one per other task, in the order the
// tasks were first seen. A path the task's previous record named keeps the
// moment it was first named; one it no longer names is forgotten.
func (d *Detector) Record(task, agent string, paths []string) []Overlap {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seq++
	tp := d.tasks[task]
	if tp == nil {
		tp = &taskPaths{}
		d.tasks[task] = tp
		d.orders = append(d.orders, task)
	}
	since := make(map[string]int64, len(paths))
	for _, p := range paths {
		if p == "" {
			continue
		}
		if at, ok := tp.since[p]; ok {
			since[p] = at
		} else {
			since[p] = d.seq
		}
	}
	tp.agent, tp.since = agent, since
	var out []Overlap
	for _, other := range d.orders {
		op := d.tasks[other]
		if other == task || op == nil {
			continue
		}
		if o, ok := d.meet(task, tp, other, op); ok {
			out = append(out, o)
		}
	}
	return out
}

// meet is the overlap of two tasks' latest records when it names a path
// not said before for the pair (d.mu held).
func (d *Detector) meet(task string, tp *taskPaths, other string, op *taskPaths) (Overlap, bool) {
	var common, fresh []string
	said := d.said[pairOf(task, other)]
	var newest int64
	laterIsTask := true
	for p, at := range tp.since {
		theirs, ok := op.since[p]
		if !ok {
			continue
		}
		common = append(common, p)
		if said[p] {
			continue
		}
		fresh = append(fresh, p)
		if m := max(at, theirs); m > newest {
			newest, laterIsTask = m, at >= theirs
		}
	}
	if len(fresh) == 0 {
		return Overlap{}, false
	}
	if said == nil {
		said = map[string]bool{}
		d.said[pairOf(task, other)] = said
	}
	for _, p := range fresh {
		said[p] = true
	}
	slices.Sort(common)
	slices.Sort(fresh)
	me, them := Party{Task: task, Agent: tp.agent}, Party{Task: other, Agent: op.agent}
	o := Overlap{First: them, Later: me, Paths: common, New: fresh}
	if !laterIsTask {
		o.First, o.Later = me, them
	}
	return o, true
}

// End forgets task (it completed or failed): its paths meet nobody's any
// more, and what was said of its pairs is forgotten.
func (d *Detector) End(task string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.tasks[task]; !ok {
		return
	}
	delete(d.tasks, task)
	d.orders = slices.DeleteFunc(d.orders, func(t string) bool { return t == task })
	for p := range d.said {
		if p.a == task || p.b == task {
			delete(d.said, p)
		}
	}
}

// Tasks lists the tasks the detector holds a record of.
func (d *Detector) Tasks() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.orders)
}

// Clean makes the paths of a record comparable across tasks: each is taken
// relative to dir (the task's dir), cleaned, and named relative to root
// (the task's worktree in worktree mode, so that two worktrees' paths
// compare as the repository's; the team's dir in a shared one), with
// forward slashes; a path outside root stays absolute. Empty entries and
// the words agents write for none ("none", "-", "n/a") are dropped;
// duplicates are named once.
func Clean(paths []string, dir, root string) []string {
	var out []string
	for _, p := range paths {
		p = strings.TrimSpace(strings.Trim(strings.TrimSpace(p), "`\"'"))
		switch strings.ToLower(p) {
		case "", "none", "-", "n/a", "na", "(none)", "nothing":
			continue
		}
		abs := filepath.Clean(p)
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(dir, abs)
		}
		name := abs
		if root != "" {
			if rel, err := filepath.Rel(root, abs); err == nil && filepath.IsLocal(rel) {
				name = rel
			}
		}
		name = filepath.ToSlash(name)
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}
