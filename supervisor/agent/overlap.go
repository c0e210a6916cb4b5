package agent

import (
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/overlap"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// HoldOverlap: on_overlap = "serialize", and the agent's task named a file
// another open task named first; until that task completes or fails (or is
// handed to another agent after its own failed).
const HoldOverlap Hold = "overlap"

// Overlaps watches the records of the team's open tasks for a common file
// in their Files Modified (issue 37): overlap and a WARNING line once
// per pair of tasks and set of files, and with on_overlap = "serialize"
// the later task's agent held (HoldOverlap) until the first task ends.
type Overlaps struct {
	d   *Deps
	det *overlap.Detector

	mu     sync.Mutex
	agents map[string]*Agent
	// holds: the later task → the agent held on it and the task it waits
	// for.
	holds map[string]overlapHold
	// open: the overlaps said, by pair of tasks, until one of them ends
	// (Current: state.json, warden ps, STATUS.md, the page).
	open map[[2]string]state.Overlap
}

type overlapHold struct {
	agent *Agent
	first string
}

// NewOverlaps returns the team's overlap watch; each agent joins it in New.
func NewOverlaps(d *Deps) *Overlaps {
	return &Overlaps{d: d, det: overlap.New(), agents: map[string]*Agent{}, holds: map[string]overlapHold{},
		open: map[[2]string]state.Overlap{}}
}

func (o *Overlaps) add(a *Agent) {
	if o == nil {
		return
	}
	o.mu.Lock()
	o.agents[a.cfg.Name] = a
	o.mu.Unlock()
}

// seen takes a record of agent a (saved and announced): its Files
// Modified, cleaned relative to dir (where its session works) and named
// relative to root, are compared with the other open tasks' latest.
func (o *Overlaps) seen(a *Agent, cp *protocol.Checkpoint, dir, root string) {
	if _, _, review := config.ParseReviewID(cp.TaskID); o == nil || cp.TaskID == "" || review {
		return // a review round's record names no work of its own
	}
	done := cp.Status == protocol.StatusComplete || cp.Status == protocol.StatusAwaitingVerification
	for _, ov := range o.det.Record(cp.TaskID, a.cfg.Name, overlap.Clean(cp.FilesModified, dir, root)) {
		laterDone := done && ov.Later.Task == cp.TaskID
		o.say(ov, laterDone)
	}
}

// say tells of one overlap, and holds the later task's agent when the team
// serializes (never one whose task is done, nor for a task itself held:
// two tasks never wait on each other).
func (o *Overlaps) say(ov overlap.Overlap, laterDone bool) {
	d := o.d
	action := config.OverlapWarn
	var held *Agent
	if d.Config.OnOverlap == config.OverlapSerialize {
		o.mu.Lock()
		_, firstHeld := o.holds[ov.First.Task]
		h, already := o.holds[ov.Later.Task]
		switch later := o.agents[ov.Later.Agent]; {
		case already:
			action = config.OverlapSerialize // held for another task already
			ov.First.Task = h.first
		case !firstHeld && !laterDone && later != nil:
			o.holds[ov.Later.Task] = overlapHold{agent: later, first: ov.First.Task}
			action, held = config.OverlapSerialize, later
		}
		o.mu.Unlock()
	}
	kv := []any{"tasks", []string{ov.First.Task, ov.Later.Task}, "agents", []string{ov.First.Agent, ov.Later.Agent},
		"paths", ov.Paths, "new", ov.New, "action", action}
	if held != nil {
		kv = append(kv, "held", ov.Later.Agent)
	}
	o.mu.Lock()
	o.open[[2]string{ov.First.Task, ov.Later.Task}] = state.Overlap{Tasks: []string{ov.First.Task, ov.Later.Task},
		Agents: []string{ov.First.Agent, ov.Later.Agent}, Paths: ov.Paths, Action: action, At: d.Clock.Now()}
	o.mu.Unlock()
	d.Log.Warn("two open tasks modify the same files", "first", ov.First.Task, "later", ov.Later.Task,
		"paths", ov.Paths, "action", action, console.Printed, true)
	d.Events.Emit(event.Overlap, ov.Later.Agent, ov.Later.Task, kv...)
	then := ""
	if held != nil {
		then = "; " + ov.Later.Task + " is held until " + ov.First.Task + " ends (on_overlap = \"serialize\")"
	}
	d.Team.Printf(ov.Later.Agent, "WARNING: %s (%s) and %s (%s) both modify %s%s\n", ov.First.Task, ov.First.Agent,
		ov.Later.Task, ov.Later.Agent, strings.Join(ov.Paths, ", "), then)
	if held != nil {
		held.holdForOverlap(ov.First.Task)
	}
	d.Team.Publish() // state.json and STATUS.md name it
}

// Ended: task completed or failed, or was handed over after its agent
// failed (queue.OnEnd). Its records meet nobody's any more; an agent held
// for it goes on, and so does one held on it.
func (o *Overlaps) Ended(task string) {
	if o == nil {
		return
	}
	ended := false
	if st := o.d.Queue.StateOf(task); st == queue.Complete || st == queue.Failed {
		o.det.End(task)
		ended = true
	}
	var free []overlapHold
	o.mu.Lock()
	for k := range o.open {
		if ended && (k[0] == task || k[1] == task) {
			delete(o.open, k)
		}
	}
	for later, h := range o.holds {
		if h.first == task || later == task {
			free = append(free, h)
			delete(o.holds, later)
		}
	}
	o.mu.Unlock()
	for _, h := range free {
		if h.agent.releaseOverlap() && h.first == task {
			o.d.Team.Printf(h.agent.cfg.Name, "%s goes on: %s ended\n", h.agent.cfg.Name, task)
		}
	}
}

// Current is every overlap said whose two tasks are both open, oldest
// first.
func (o *Overlaps) Current() []state.Overlap {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []state.Overlap
	for _, ov := range o.open {
		out = append(out, ov)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].At.Equal(out[j].At) {
			return out[i].At.Before(out[j].At)
		}
		return strings.Join(out[i].Tasks, ",") < strings.Join(out[j].Tasks, ",")
	})
	return out
}

// starting: agent a starts a session on task (nil: none). An agent held
// for another task than this one goes on; an agent that takes up a held
// task is held in its stead.
func (o *Overlaps) starting(a *Agent, task *config.Task) {
	if o == nil {
		return
	}
	id := taskID(task)
	var release, hold *Agent
	first := ""
	o.mu.Lock()
	for later, h := range o.holds {
		switch {
		case h.agent == a && later != id:
			delete(o.holds, later)
			release = a
		case later == id && h.agent != a:
			release, hold, first = h.agent, a, h.first
			o.holds[later] = overlapHold{agent: a, first: h.first}
		}
	}
	o.mu.Unlock()
	if release != nil {
		release.releaseOverlap()
	}
	if hold != nil {
		hold.holdForOverlap(first)
	}
}

// holdForOverlap holds the agent until task first ends.
func (a *Agent) holdForOverlap(first string) {
	a.holds.mu.Lock()
	a.holds.overlapWith = first
	a.holds.mu.Unlock()
	a.Hold(HoldOverlap, time.Time{})
}

// releaseOverlap lets the agent go on (unless another reason holds it); it
// reports whether the overlap held it.
func (a *Agent) releaseOverlap() bool {
	a.holds.mu.Lock()
	a.holds.overlapWith = ""
	a.holds.mu.Unlock()
	return a.Release(HoldOverlap)
}

// OverlapHeld is the task the agent waits for (on_overlap = "serialize"),
// or "".
func (a *Agent) OverlapHeld() string {
	a.holds.mu.Lock()
	defer a.holds.mu.Unlock()
	if _, ok := a.holds.set[HoldOverlap]; !ok {
		return ""
	}
	return a.holds.overlapWith
}

// overlapRoot is what the session's paths are named relative to: its
// task's worktree (each task has its own: the repository's paths compare),
// else the team file's dir.
func (r *reporter) overlapRoot() string {
	if r.ts != nil {
		return r.ts.Worktree.Path
	}
	return filepath.Dir(r.a.d.Config.Path)
}
