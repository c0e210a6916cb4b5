package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/state"
)

// builder folds the state dir's files into a Report.
type builder struct {
	r      *Report
	runID  string
	tasks  map[string]int // index in r.Tasks
	agents map[string]int // index in r.Agents
	open   map[string]int // an agent's open wait: index in r.Waits
	closed map[string]int // an agent's last wait closed: index in r.Waits
	parked map[string]int // an account parked: index in r.Limits
	ends   map[string]sessionEnd
	work   map[int]taskWork // a task's branch as the events say: index in r.Tasks
	land   *Land            // the last land of the run (land.go)
	// landHanded, landLeft: the run's land tasks, and the stop it left for
	// a person (land.go)
	landHanded []string
	landLeft   string
	lastTC     int // the last team checkpoint: index in r.TeamCheckpoints
	// stopping: a team checkpoint stops the sessions (their exits are
	// not bad ones), until the team goes on or is done.
	stopping bool

	lastTS, prevTS time.Time
	doneAt         time.Time // the last team_done
	exitCode       *int
	records        []state.Entry // this run's records in the history
}

func newBuilder(r *Report, snap *state.Snapshot) *builder {
	b := &builder{r: r, runID: snap.RunID, tasks: map[string]int{}, agents: map[string]int{},
		open: map[string]int{}, closed: map[string]int{}, parked: map[string]int{}, ends: map[string]sessionEnd{}, work: map[int]taskWork{}, lastTC: -1}
	r.Tasks = tasksOf(snap.Tasks)
	for i, t := range snap.Tasks {
		b.tasks[t.ID] = i
	}
	for _, a := range snap.Agents {
		if i := b.agent(a.Name); i != nil {
			i.State = plain(string(a.State))
		}
	}
	return b
}

// agent is the report's agent called name, as written or made plain
// (added when the events name one state.json does not have); nil for "".
func (b *builder) agent(name string) *Agent {
	name = plain(name)
	if name == "" {
		return nil
	}
	i, ok := b.agents[name]
	if !ok {
		i = len(b.r.Agents)
		b.agents[name] = i
		b.r.Agents = append(b.r.Agents, Agent{Name: name})
	}
	return &b.r.Agents[i]
}

// task is the report's task id; nil when state.json has no such task.
func (b *builder) task(id string) *Task {
	if i, ok := b.tasks[id]; ok && id != "" {
		return &b.r.Tasks[i]
	}
	return nil
}

// readHistory counts this run's records in the checkpoint history.
func (b *builder) readHistory(root string) {
	entries, err := state.ReadHistory(root, "")
	if err != nil {
		b.r.Notes = append(b.r.Notes, plain("checkpoint history: "+err.Error()))
		return
	}
	for _, e := range entries {
		if e.Run != b.runID {
			continue
		}
		b.records = append(b.records, e)
		if e.Trigger == protocol.TriggerDispatch {
			continue // warden's own record of a session's start, not an answer
		}
		b.r.Summary.CheckpointsKept++
		if t := b.task(e.Task); t != nil {
			t.CheckpointsKept++
		}
	}
}

// finish says how the run stands (running: its supervisor holds the
// lock), ends the waits still open, and sums up.
func (b *builder) finish(snap *state.Snapshot, locked bool, now time.Time) {
	r := b.r
	run := &r.Run
	switch {
	case snap.Ended != "":
		run.Ended, run.EndedAt, run.ExitCode = plain(snap.Ended), snap.UpdatedAt, b.exitCode
		if !b.doneAt.IsZero() {
			run.EndedAt = b.doneAt
		}
	case snap.Running && locked:
		run.Ended = EndedRunning
	default:
		run.Ended, run.EndedAt = EndedInterrupted, laterOf(snap.UpdatedAt, b.lastTS)
	}
	end := run.EndedAt
	if end.IsZero() {
		end = now
	}
	if !run.Started.IsZero() && end.After(run.Started) {
		run.DurationSeconds = end.Sub(run.Started).Seconds()
	}
	how := "run_ended"
	if run.Ended == EndedRunning {
		how = "waiting"
	}
	for agent, i := range b.open {
		r.Waits[i].Ended = how
		if how == "run_ended" {
			r.Waits[i].Until = end
		}
		delete(b.open, agent)
	}
	s := &r.Summary
	for i := range r.Waits {
		w := &r.Waits[i]
		until := w.Until
		if until.IsZero() {
			until = end
		}
		if until.After(w.Since) {
			w.WaitedSeconds = until.Sub(w.Since).Seconds()
		}
		s.Waits++
		s.WaitedSeconds += w.WaitedSeconds
		if a := b.agent(w.Agent); a != nil {
			a.Waits++
			a.WaitedSeconds += w.WaitedSeconds
		}
	}
	s.Limits, s.TeamCheckpoints, s.Tasks = len(r.Limits), len(r.TeamCheckpoints), len(r.Tasks)
	for _, t := range r.Tasks {
		switch queue.State(t.State) {
		case queue.Complete:
			s.Done++
		case queue.Failed:
			s.Failed++
		default:
			s.Open++
		}
		s.WorkedSeconds += t.WorkedSeconds
		if t.EstimateSeconds > 0 {
			s.EstimateSeconds += t.EstimateSeconds
			s.EstimatedWorkedSeconds += t.WorkedSeconds
		}
	}
	run.Why = b.why(snap)
	sort.SliceStable(r.Agents, func(i, j int) bool { return r.Agents[i].Name < r.Agents[j].Name })
}

// why says more of how the run stands than Ended.
func (b *builder) why(snap *state.Snapshot) string {
	r := b.r
	switch r.Run.Ended {
	case EndedRunning:
		return fmt.Sprintf("its supervisor (pid %d) runs it now", snap.Pid)
	case EndedInterrupted:
		return fmt.Sprintf("its supervisor (pid %d) ended without finishing it; `warden run` carries it on", snap.Pid)
	case EndedStopped:
		if n := len(r.TeamCheckpoints); n > 0 {
			return "with tasks open; the last team checkpoint: " + r.TeamCheckpoints[n-1].Reason
		}
		return "with tasks open"
	case EndedFinished:
		if r.Summary.Done == r.Summary.Tasks {
			return "every task complete"
		}
		return fmt.Sprintf("%d of %s complete; none of the others could go on", r.Summary.Done, plural(r.Summary.Tasks, "task"))
	}
	return ""
}

func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// sessionEnd is what the events said of how an agent's last session
// ended, for the restart that follows.
type sessionEnd struct {
	seen    bool
	code    *int
	signal  string
	stalled string // "stalled (…)", or why the kernel ended it
}

// restarted adds an agent_restarted, with why its last session ended.
func (b *builder) restarted(e *ev, a *Agent, t *Task) {
	end := b.ends[e.Agent]
	rs := Restart{At: e.TS, Agent: plain(e.Agent), Task: plain(e.Task), Attempt: e.Attempt, Backoff: plain(e.Backoff)}
	if d, err := time.ParseDuration(e.Backoff); err == nil {
		rs.Backoff = d.Round(100 * time.Millisecond).String()
	}
	if end.seen {
		rs.ExitCode = end.code
	}
	switch {
	case e.Reason != "":
		rs.Why = clip(plain(e.Reason), maxText)
	case end.stalled != "":
		rs.Why = end.stalled
	case end.signal != "":
		rs.Why = "killed by " + end.signal
	case end.code != nil:
		rs.Why = fmt.Sprintf("exited with code %d", *end.code)
	default:
		rs.Why = "its session ended"
	}
	b.r.Restarts = append(b.r.Restarts, rs)
	b.r.Summary.Restarts++
	if a != nil {
		a.Restarts++
	}
	if t != nil {
		t.Restarts++
	}
}

// closeWait ends the agent's open wait at ts, how.
func (b *builder) closeWait(agent string, ts time.Time, how string) {
	i, ok := b.open[agent]
	if !ok {
		return
	}
	delete(b.open, agent)
	b.closed[agent] = i
	w := &b.r.Waits[i]
	w.Until, w.Ended = ts, how
}

// closeWaits ends every open wait at ts, how.
func (b *builder) closeWaits(ts time.Time, how string) {
	for agent := range b.open {
		b.closeWait(agent, ts, how)
	}
}

// rawText is a JSON value as text: a string's content, else the JSON.
func rawText(m json.RawMessage) string {
	var s string
	if json.Unmarshal(m, &s) == nil {
		return s
	}
	return string(m)
}

func lastN(l []string, n int) []string {
	if len(l) > n {
		return l[len(l)-n:]
	}
	return l
}
