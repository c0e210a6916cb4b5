package sim

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// stormBound is the most events one agent (or the team, for its own) may
// cause in one simulated second: a restart, a dispatch, a session's start
// and end, a record or two, a warning. More is a storm.
const stormBound = 20

// invariants is what the checks remember between steps.
type invariants struct {
	asks     []time.Time // team checkpoints asked for
	stopAt   time.Time   // the first stop asked for
	giveUp   bool        // a liveness bound broke: the night ends there
	perSec   map[string]int
	lastDisp map[string]string // task → the agent it was last dispatched to, until it started or changed
	stopping bool              // a team checkpoint runs (from its start until the next generation)
	began    time.Time         // when it started
	stuck    time.Time         // since when nothing can move
	complete map[string]int    // task → task_completed events
	parked   map[string]bool   // agents parked at their account's limit
	resumeBy time.Time         // … whom the reset must let go on by then
	held     bool              // every agent parked for the team's budget (on_budget = "pause")
}

func (v *invariants) asked(w *World, at time.Time) { v.asks = append(v.asks, at) }

func (v *invariants) stopped(w *World, at time.Time) {
	if v.stopAt.IsZero() {
		v.stopAt = at
	}
}

// bound is how long a stop or a team checkpoint may take: the last call's
// checkpoint_timeout, the stop's shutdown_timeout, and a second.
func (w *World) bound() time.Duration {
	return w.spec.Timers.Timeout + w.spec.Timers.Shutdown + slack
}

// check looks at the world after a step: the events since the last step
// (no storm, no start while the team stops, exactly once), then the bounds
// (liveness), then state.json, STATUS.md and events.jsonl against each
// other (one story).
func (w *World) check(ended bool) {
	v := &w.inv
	if v.perSec == nil {
		v.perSec, v.lastDisp, v.complete = map[string]int{}, map[string]string{}, map[string]int{}
	}
	evs := w.eventsNow()
	for _, e := range evs[w.checkedTo:] {
		w.checkEvent(e)
	}
	w.checkedTo = len(evs)
	w.checkStarts(evs)
	w.checkRecorded()
	now := time.Now()
	if ended {
		return
	}
	b := w.bound()
	if !v.stopAt.IsZero() && now.Sub(v.stopAt) > b {
		w.fail("liveness: a stop asked at %.3fs has not ended the run within checkpoint_timeout + shutdown_timeout + 1s (%v)",
			v.stopAt.Sub(w.t0).Seconds(), b)
		v.giveUp = true
	}
	if v.stopping && now.Sub(v.began) > b {
		w.fail("liveness: the team checkpoint begun at %.3fs has not completed within %v", v.began.Sub(w.t0).Seconds(), b)
		v.giveUp = true
	}
	if !v.resumeBy.IsZero() && now.After(v.resumeBy) && v.stopAt.IsZero() {
		w.fail("liveness: the account parked until its reset was not resumed by %.0fs (the reset, the margin, the bound)", v.resumeBy.Sub(w.t0).Seconds())
		v.giveUp = true
	}
	for _, at := range v.asks {
		if now.Sub(at) > b+slack && !completedSince(evs, at) {
			w.fail("liveness: a team checkpoint asked at %.3fs never completed", at.Sub(w.t0).Seconds())
			v.giveUp = true
			break
		}
	}
	snap := w.snapshot()
	if snap == nil {
		return
	}
	if !v.stopping {
		w.checkIdle(snap, now)
	}
	w.checkStory(snap, false)
}

// stateFile is what the checks read of state.json.
type stateFile struct {
	Running bool `json:"running"`
	Tasks   []struct {
		ID      string      `json:"id"`
		State   queue.State `json:"state"`
		Attempt int         `json:"attempt"`
	} `json:"tasks"`
	Agents []struct {
		Name  string           `json:"name"`
		State state.AgentState `json:"state"`
	} `json:"agents"`
}

// count is how many tasks are in st.
func (f *stateFile) count(st queue.State) int {
	n := 0
	for _, t := range f.Tasks {
		if t.State == st {
			n++
		}
	}
	return n
}

// snapshot is state.json, read again only when it was written since the
// last read (a new file: the team writes it whole and renames it).
func (w *World) snapshot() *stateFile {
	path := filepath.Join(w.cfg.StateDir, "state.json")
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	key := fmt.Sprintf("%d/%d/%v", fi.Size(), fi.ModTime().UnixNano(), fi.Sys())
	if key == w.snapKey && w.snap != nil {
		return w.snap
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var snap stateFile
	if json.Unmarshal(b, &snap) != nil {
		return nil
	}
	w.snap, w.snapKey, w.snapNew = &snap, key, true
	return &snap
}

// checkEvent judges one event as it comes.
func (w *World) checkEvent(e Event) {
	v := &w.inv
	at := e.Time()
	who := e.Agent()
	if who == "" {
		who = "(team)"
	}
	sec := who + "@" + strconv.FormatInt(at.Unix(), 10)
	if v.perSec[sec]++; v.perSec[sec] == stormBound+1 {
		w.fail("no storm: %s caused more than %d events in the simulated second at %.0fs (the last: %s %s)",
			who, stormBound, at.Sub(w.t0).Seconds(), e.Name(), e.Task())
	}
	switch e.Name() {
	case "run_started":
		v.stopping = false         // a warden begins
		if e.Str("how") == "new" { // a new run: what the old one completed is history
			clear(v.complete)
			w.runBegan = at
		}
	case "account_parked":
		if v.parked == nil {
			v.parked = map[string]bool{}
		}
		for _, a := range strings.Split(strings.Trim(e.Str("agents"), "[]"), " ") {
			v.parked[a] = true
		}
		if reset, err := time.Parse(time.RFC3339, e.Str("resets_at")); err == nil {
			v.resumeBy = reset.Add(30*time.Second + w.bound()) // usageLimitMargin, then the bound
		}
	case "account_resumed":
		clear(v.parked)
		v.resumeBy = time.Time{}
	case "checkpoint_requested", "agent_nudged":
		what := map[bool]string{true: "a checkpoint request", false: "a nudge"}[e.Name() == "checkpoint_requested"]
		if v.parked[e.Agent()] && !v.stopping {
			w.fail("no key into a parked agent: %s typed to %s while its account is parked", what, e.Agent())
		}
		if v.held && !v.stopping {
			w.fail("no key into a parked agent: %s typed to %s while the team's budget holds it", what, e.Agent())
		}
	case "budget_exceeded":
		switch {
		case e.Str("budget") != "team":
		case e.Str("action") == "pause":
			v.held = true
		case v.stopAt.IsZero(): // checkpoint-exit: a stop, by the budget
			v.stopAt = at
		}
	case "budget_resumed":
		v.held = false
	case "team_checkpoint_started":
		v.stopping, v.began = true, at
	case "team_rehydrated":
		v.stopping = false
		clear(v.lastDisp)
	case "task_dispatched":
		if v.stopping {
			w.fail("no start while stopping: %s dispatched to %s after the team checkpoint began", e.Task(), e.Agent())
		}
		if prev, ok := v.lastDisp[e.Task()]; ok && prev == e.Agent() {
			w.fail("no storm: %s dispatched to %s again with nothing between (no session, no change of state)", e.Task(), e.Agent())
		}
		v.lastDisp[e.Task()] = e.Agent()
	case "agent_started":
		if v.stopping {
			w.fail("no start while stopping: a session of %s started after the team checkpoint began", e.Agent())
		}
		delete(v.lastDisp, e.Task())
	case "task_released", "task_blocked", "task_failed", "task_afresh", "agent_exited":
		delete(v.lastDisp, e.Task())
	case "task_reopened":
		delete(v.complete, e.Task()) // --from: it may complete again
	case "task_completed":
		delete(v.lastDisp, e.Task())
		if v.complete[e.Task()]++; v.complete[e.Task()] > 1 {
			w.fail("exactly once: %s completed twice", e.Task())
		}
		w.checkCompletion(e)
	}
}

// checkStarts: no session starts once the team checkpoint began, until the
// next generation (the seam saw it, whatever the events say).
func (w *World) checkStarts(evs []Event) {
	w.mu.Lock()
	starts := w.starts
	w.starts = nil
	w.mu.Unlock()
	for _, s := range starts {
		stopping := false
		for _, e := range evs[:min(s.after, len(evs))] {
			switch e.Name() {
			case "team_checkpoint_started":
				stopping = true
			case "team_rehydrated", "run_started":
				stopping = false
			}
		}
		if stopping {
			w.fail("no start while stopping: %s's process was started at %.3fs, after the team checkpoint began", s.agent, s.at.Sub(w.t0).Seconds())
		}
	}
}

// checkRecorded: no answer recorded twice, no bad answer recorded.
func (w *World) checkRecorded() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for mark, n := range w.recorded {
		p, ok := w.printed[mark]
		switch {
		case n > 1:
			w.failLocked("exactly once: %s recorded %d times", mark, n)
			w.recorded[mark] = 1
		case ok && !p.valid:
			w.failLocked("exactly once: the bad answer %s was recorded", mark)
			w.recorded[mark] = 0
		}
	}
}

func (w *World) failLocked(format string, a ...any) {
	if len(w.failures) < 10 {
		w.failures = append(w.failures, fmt.Sprintf("%8.3fs  ", time.Since(w.t0).Seconds())+fmt.Sprintf(format, a...))
	}
}

// checkCompletion: a task completes only on an answer of this run that
// said so, and with a verify, once its verify passed after that answer.
func (w *World) checkCompletion(e Event) {
	task := e.Task()
	w.mu.Lock()
	defer w.mu.Unlock()
	var said time.Time
	for mark, p := range w.printed {
		if p.task == task && p.valid && w.recorded[mark] > 0 && !p.at.Before(w.runBegan) {
			if said.IsZero() || p.at.Before(said) {
				said = p.at
			}
		}
	}
	if said.IsZero() {
		w.failLocked("exactly once: %s completed without an answer of this run that said it is done", task)
		return
	}
	if w.taskSpec(task).Verify == "" {
		return
	}
	for _, v := range w.verifies {
		if v.task == task && v.passed && !v.at.Before(said) && !v.at.After(e.Time()) {
			return
		}
	}
	w.failLocked("exactly once: %s completed without a passing verify after its answer", task)
}

func (w *World) taskSpec(id string) TaskSpec {
	for _, t := range w.spec.Tasks {
		if t.ID == id {
			return t
		}
	}
	return TaskSpec{}
}

// checkIdle: a free agent and a task it may take meet within one step, and
// a run where nothing can move any more ends.
func (w *World) checkIdle(snap *stateFile, now time.Time) {
	if !snap.Running {
		return
	}
	moving := false
	for _, a := range snap.Agents {
		switch a.State {
		case state.Idle:
			for _, t := range snap.Tasks {
				if t.State == queue.Pending && (w.taskSpec(t.ID).Agent == "" || w.taskSpec(t.ID).Agent == a.Name) &&
					w.spec.Reviewer(t.ID) != a.Name { // a reviewer never takes the task it reviews
					w.fail("liveness: %s is idle while %s waits for an agent", a.Name, t.ID)
					w.inv.giveUp = true
					return
				}
			}
		case state.Exited, state.Failed, state.Stopped:
		default:
			moving = true
		}
	}
	open := 0
	for _, t := range snap.Tasks {
		if t.State != queue.Complete && t.State != queue.Failed {
			open++
		}
	}
	if moving || open == 0 {
		w.inv.stuck = time.Time{}
		return
	}
	if w.inv.stuck.IsZero() {
		w.inv.stuck = now
	}
	if now.Sub(w.inv.stuck) > w.bound() {
		w.fail("liveness: nothing can move (no agent at work, %d tasks open, none any agent left may take) and the run has not ended", open)
		w.inv.giveUp = true
	}
}

func completedSince(evs []Event, at time.Time) bool {
	for _, e := range evs {
		if (e.Name() == "checkpoint_complete" || e.Name() == "team_done") && !e.Time().Before(at) {
			return true
		}
	}
	return false
}

var doneLine = regexp.MustCompile(`Tasks: (\d+) of (\d+) done`)

// checkStory: state.json, STATUS.md and events.jsonl agree on every count:
// tasks complete and failed, and (at the end) the handoff's.
func (w *World) checkStory(snap *stateFile, final bool) {
	c := map[queue.State]int{queue.Complete: snap.count(queue.Complete), queue.Failed: snap.count(queue.Failed)}
	completed := len(w.inv.complete)
	if c[queue.Complete] != completed {
		var st []string
		for _, t := range snap.Tasks {
			st = append(st, t.ID+"="+string(t.State))
		}
		w.fail("one story: state.json has %d tasks complete, events.jsonl %d task_completed (state.json: %s)", c[queue.Complete], completed, strings.Join(st, " "))
	}
	if !w.snapNew && !final {
		return // STATUS.md is written with state.json: looked at once per write
	}
	w.snapNew = false
	md, err := os.ReadFile(filepath.Join(w.cfg.StateDir, "STATUS.md"))
	if err != nil {
		return
	}
	w.statusMD = string(md) // the last one read, for a test to look at once the night's dir is gone
	if m := doneLine.FindStringSubmatch(string(md)); m == nil {
		w.fail("one story: STATUS.md has no task count")
	} else if m[1] != strconv.Itoa(c[queue.Complete]) || m[2] != strconv.Itoa(len(snap.Tasks)) {
		w.fail("one story: STATUS.md says %s of %s done, state.json %d of %d", m[1], m[2], c[queue.Complete], len(snap.Tasks))
	}
	if !final {
		return
	}
	failed := map[string]bool{}
	for _, e := range w.eventsNow() {
		switch {
		case e.Name() == "run_started" && e.Str("how") == "new":
			clear(failed)
		case e.Name() == "task_failed":
			failed[e.Task()] = true
		case e.Name() == "task_reopened":
			delete(failed, e.Task())
		}
	}
	if c[queue.Failed] != len(failed) {
		w.fail("one story: state.json has %d tasks failed, events.jsonl names %d in task_failed", c[queue.Failed], len(failed))
	}
	w.checkHandoff(snap)
	w.checkAttempts(snap)
}

// checkAttempts: a task's attempts in state.json are the sessions started
// on it in the run.
func (w *World) checkAttempts(snap *stateFile) {
	sessions := map[string]int{}
	for _, e := range w.eventsNow() {
		switch {
		case e.Name() == "run_started" && e.Str("how") == "new":
			clear(sessions)
		case e.Name() == "agent_started" && e.Task() != "":
			sessions[e.Task()]++
		}
	}
	for _, t := range snap.Tasks {
		if t.Attempt != sessions[t.ID] {
			w.fail("one story: state.json says %s had %d attempts, events.jsonl %d sessions", t.ID, t.Attempt, sessions[t.ID])
		}
	}
}

// checkHandoff: the last handoff counts the tasks complete as the events
// did when it was written.
func (w *World) checkHandoff(snap *stateFile) {
	b, err := os.ReadFile(filepath.Join(w.cfg.StateDir, "handoff.md"))
	if err != nil {
		return
	}
	w.handoffMD = string(b) // the last one read, for a test to look at
	var written time.Time
	evs := w.eventsNow()
	for _, e := range evs {
		if e.Name() == "handoff_written" {
			written = e.Time()
		}
	}
	done := map[string]bool{}
	for _, e := range evs {
		switch {
		case e.Time().After(written):
		case e.Name() == "run_started" && e.Str("how") == "new":
			clear(done)
		case e.Name() == "task_completed":
			done[e.Task()] = true
		case e.Name() == "task_reopened":
			delete(done, e.Task())
		}
	}
	said := handoffComplete(string(b))
	if said != len(done) {
		w.fail("one story: handoff.md counts %d tasks complete, events.jsonl %d by the time it was written", said, len(done))
	}
}

// handoffComplete counts the tasks handoff.md's Review table lists as
// complete.
func handoffComplete(md string) int {
	_, review, ok := strings.Cut(md, "\n## Review\n")
	if !ok {
		return -1
	}
	n := 0
	for _, line := range strings.Split(review, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) > 3 && strings.TrimSpace(cells[2]) == "complete" {
			n++
		}
	}
	return n
}

// finalChecks run once the team ended: every valid answer printed to a
// session that lived on was recorded, nothing is left running, the story
// is one.
func (w *World) finalChecks() {
	w.check(true)
	w.snap = nil
	if snap := w.snapshot(); snap != nil {
		w.checkStory(snap, true)
	}
	w.mu.Lock()
	procs := slices.Clone(w.procs)
	w.mu.Unlock()
	for _, p := range procs {
		if p.Alive() {
			w.fail("no process left behind: %s (pid %d) outlived the run", p.name, p.pid)
		}
	}
	w.checkAnswered()
	if w.result.ExitCode() == 0 {
		for _, t := range w.result.Tasks {
			if t.State != queue.Complete {
				w.fail("one story: exit 0 with %s %s", t.ID, t.State)
			}
		}
	}
}

// checkAnswered: a valid answer printed while its session lived on for a
// while after is recorded.
func (w *World) checkAnswered() {
	dropped := map[string]bool{}
	for _, e := range w.eventsNow() {
		if e.Name() == "answers_dropped" {
			dropped[e.Agent()] = true
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var missing []string
	for mark, p := range w.printed {
		if !p.valid || w.recorded[mark] > 0 || dropped[p.agent] || !w.livedOn(p) {
			continue
		}
		missing = append(missing, mark)
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		w.failLocked("exactly once: %d answers printed and never recorded (%s)", len(missing), strings.Join(missing[:min(5, len(missing))], ", "))
	}
}

// livedOn reports whether the session that printed p was left alone for
// answerGrace after: not told to stop, not stopped, not ended. w.mu held.
func (w *World) livedOn(p answerPrinted) bool {
	const answerGrace = 2 * time.Second
	told := p.proc.toldAt()
	return told.IsZero() || told.Sub(p.at) > answerGrace
}
