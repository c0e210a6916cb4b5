package supervisor

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/hookbus"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/session"
	"github.com/wardenhq/warden/supervisor/state"
)

// startHookBus listens on the team's hook socket (the hooks reach it
// through `warden hook`) and routes each message to its agent's session. It
// returns the function that stops it and the channel that gets the error
// the socket died of, or why it could not listen.
func (t *Team) startHookBus() (stop func(), failed <-chan error, err error) {
	srv, err := hookbus.Listen(t.log, t.dir.HookSocket())
	if err != nil {
		return nil, nil, err
	}
	srv.CheckSenders(t.ownsHookSender)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m := range srv.Messages() {
			t.RouteHook(m)
		}
	}()
	return func() {
		srv.Close()
		<-done
	}, srv.Failed(), nil
}

// RouteHook hands a hook message to its agent's session — only from a
// process of that session's own tree (the sender's pid, from the kernel,
// must be in the agent's session or below its process by the parent links:
// never an environment tag, which any process can copy), and only of a kind
// the agent's CLI sends (a plain agent's wrapper may send any).
func (t *Team) RouteHook(m hookbus.Message) {
	a := t.agentNamed(m.Agent)
	s := (*session.Session)(nil)
	if a != nil {
		s = a.Session()
	}
	switch {
	case s == nil:
		t.log.Debug("hook message for no running session", "agent", m.Agent, "kind", m.Kind)
	case !senderOwned(m, s):
		t.refuseHook(m, "its sender is not a process of the agent")
	case !profile.Sends(a.Config().Profile, m.Kind):
		t.refuseHook(m, "not a kind the agent's CLI sends")
	default:
		s.Hook(m)
	}
}

// senderOwned is the bus's answer about m's sender, or — for a message it
// did not check — the session's.
func senderOwned(m hookbus.Message, s *session.Session) bool {
	if m.Checked {
		return m.Owned
	}
	return s.Owns(m.Pid)
}

// ownsHookSender reports whether process pid is of the running session of
// agent. The hook bus asks it while the sender waits for its reply.
func (t *Team) ownsHookSender(agent string, pid int) bool {
	a := t.agentNamed(agent)
	if a == nil {
		return false
	}
	s := a.Session()
	return s != nil && s.Owns(pid)
}

// hookRefusalEvery bounds the hook_refused events of one agent: a flood of
// forged messages is one event a period, with the count it stands for.
const hookRefusalEvery = 10 * time.Second

// refuseHook logs a refused hook message and records it as an event, both
// at most once per hookRefusalEvery for its agent, with how many refusals
// they stand for.
func (t *Team) refuseHook(m hookbus.Message, why string) {
	t.hookMu.Lock()
	r := t.refusals[m.Agent]
	r.n++
	now := t.clock.Now()
	emit := r.last.IsZero() || now.Sub(r.last) >= hookRefusalEvery
	n := r.n
	if emit {
		r = hookRefusals{last: now}
	}
	t.refusals[m.Agent] = r
	t.hookMu.Unlock()
	if emit {
		t.log.Warn("hook message refused", "reason", why, "agent", m.Agent, "kind", m.Kind, "pid", m.Pid, "count", n)
		t.events.Emit(event.HookRefused, m.Agent, "", "kind", m.Kind, "sender_pid", m.Pid, "reason", why, "count", n)
	}
}

// hookRefusals counts an agent's refused hook messages since its last event.
type hookRefusals struct {
	last time.Time
	n    int
}

// spoolClockSlack is how far a spooled line's own time may pass its file's
// last write (a file system's coarse clock) before the line is taken for
// one `warden hook` did not write.
const spoolClockSlack = 2 * time.Second

// replaySpool records the checkpoint answers that reached a hook while no
// warden listened (the supervisor was restarting): each valid block a line
// carries may become a record of trigger "unasked" from a session warden
// never saw. Other spooled messages (gauges, limits) described a moment
// that is gone and are dropped. Begin runs it, so that --resume offers the
// replayed records. Any process of the user can write the spool, so a line
// is judged (spoolJudge) by what the supervisor that ran those sessions
// wrote down in state.json, by the file's own order and time, and by the
// ledger's rule; what is refused is logged and said in one hook_refused
// event per agent, kind and reason.
//
// carry says the run the lines belong to is being carried on: a replayed
// record goes through the recorder (the queue, checkpoint_received, the
// stdout line) like any answer; for a run put aside it is only saved, as
// that run's history.
func (t *Team) replaySpool(carry bool) {
	msgs, skipped, err := hookbus.Drain(t.dir.Root)
	if err != nil {
		t.log.Warn("hook spool not read", "error", err)
	}
	if len(msgs) == 0 && skipped == 0 {
		return
	}
	prev, _ := state.ReadSnapshot(t.dir.Root)
	j := newSpoolJudge(t, prev)
	j.carry = carry
	for _, m := range msgs {
		j.judge(m)
	}
	keys := make([]refusal, 0, len(j.refused))
	for k := range j.refused {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		x, y := keys[a], keys[b]
		return x.agent < y.agent || (x.agent == y.agent && (x.why < y.why || (x.why == y.why && x.kind < y.kind)))
	})
	for _, k := range keys {
		n := j.refused[k]
		t.log.Warn("spooled hook messages refused", "agent", k.agent, "kind", k.kind, "reason", k.why, "count", n)
		t.events.Emit(event.HookRefused, k.agent, "", "kind", k.kind, "spooled", true, "reason", "spooled: "+k.why, "count", n)
	}
	t.log.Info("hook spool replayed", "messages", len(msgs), "records", j.replayed, "torn_lines", skipped)
}

// spoolJudge holds what the replay's rules are checked against.
type spoolJudge struct {
	t        *Team
	prev     *state.Snapshot
	agents   map[string]state.AgentStatus // of the supervisor that spooled
	open     map[string]queue.Status      // tasks open in that run, as the team file has them now
	last     map[string]time.Time         // per spool file: the previous line's time
	refused  map[refusal]int              // lines refused, by agent and why
	replayed int
	carry    bool // the run is carried on: records are announced
}

// refusal is why lines of an agent's spool were refused.
type refusal struct{ agent, kind, why string }

func newSpoolJudge(t *Team, prev *state.Snapshot) *spoolJudge {
	j := &spoolJudge{t: t, prev: prev, agents: map[string]state.AgentStatus{}, open: map[string]queue.Status{},
		last: map[string]time.Time{}, refused: map[refusal]int{}}
	if prev == nil {
		return j
	}
	for _, a := range prev.Agents {
		j.agents[a.Name] = a
	}
	was := map[string]queue.State{}
	for _, ts := range prev.Tasks {
		was[ts.ID] = ts.State
	}
	done, _ := t.store.CompletedTasks(prev.RunID)
	for _, ts := range t.queue.Snapshot() {
		st, known := was[ts.ID]
		if known && st != queue.Complete && st != queue.Failed && !done[ts.ID] {
			j.open[ts.ID] = ts
		}
	}
	return j
}

func (j *spoolJudge) refuse(m hookbus.Message, why string) {
	agent, kind := m.Agent, m.Kind
	if j.t.agentNamed(agent) == nil {
		agent = "" // a name no agent has is not repeated into the log
	}
	if !slices.Contains(profile.HookKinds(), kind) && kind != profile.KindCodexTokenCount {
		kind = "" // nor a kind no CLI sends
	}
	j.refused[refusal{agent, kind, why}]++
}

// judge replays one spooled message, or refuses it.
//
// Who: the line must come from `warden hook` inside the process tree of
// the agent it names, in a session of the supervisor state.json names —
// its sender's runner tag one of that supervisor's, its agent process the
// very pid state.json gives for that agent, the hook started after it,
// and the line in that agent's own spool file. What: only a kind the
// agent's CLI sends, only an answer, only for the task state.json says
// the agent held, still open. When: the file's order, not the line's
// word: a line's time is at most its file's last write and never before
// the line above it; one that claims to come after its file was last
// written, or before that supervisor started, was not written by a hook.
// The ledger: a spooled answer becomes a record only when it is newer
// than the task's latest record of the run and says something else (the
// same answer seen on the screen before warden stopped is that record).
func (j *spoolJudge) judge(m hookbus.Message) {
	a, known := j.agents[m.Agent]
	s, sp := m.Sender, m.Spooled
	switch {
	case j.prev == nil || j.prev.RunID == "":
		j.refuse(m, "no run to replay it into (state.json names none)")
		return
	case !known || j.t.agentNamed(m.Agent) == nil:
		j.refuse(m, "not an agent of this team's run")
		return
	case sp == nil || sp.File != m.Agent:
		j.refuse(m, "in another agent's spool file")
		return
	case s == nil:
		j.refuse(m, "no sender recorded (not written by warden hook)")
		return
	case !strings.HasPrefix(s.Tag, strconv.Itoa(j.prev.Pid)+"."):
		j.refuse(m, "its session is not one the supervisor of this run started")
		return
	case s.Agent != a.Pid || a.Pid == 0:
		j.refuse(m, "its sender is not in the process tree of the agent it names")
		return
	case s.Start < s.AgentStart:
		j.refuse(m, "its sender started before the agent's process")
		return
	case !profile.Sends(j.t.agentNamed(m.Agent).Config().Profile, m.Kind):
		j.refuse(m, "not a kind the agent's CLI sends")
		return
	}
	at, ok := j.when(m)
	if !ok {
		return
	}
	f := profile.ReadHook(m.Kind, m.Payload)
	if !f.HasAnswer {
		return // a gauge or a limit of a moment that is gone
	}
	blocks, _ := protocol.ParseBlocks(f.Answer)
	for _, b := range blocks {
		j.record(m, a, b, at)
	}
}

// when is the line's time by the file's order and its last write.
func (j *spoolJudge) when(m hookbus.Message) (time.Time, bool) {
	sp := m.Spooled
	if m.At.After(sp.Modified.Add(spoolClockSlack)) {
		j.refuse(m, "dated after its spool file was last written")
		return time.Time{}, false
	}
	if m.At.Before(j.prev.StartedAt) {
		j.refuse(m, "dated before the supervisor of its session started")
		return time.Time{}, false
	}
	at := m.At
	if sp.Modified.Before(at) {
		at = sp.Modified
	}
	if now := j.t.clock.Now(); now.Before(at) {
		at = now
	}
	if last := j.last[sp.File]; at.Before(last) {
		at = last
	}
	j.last[sp.File] = at
	return at.UTC(), true
}

// record makes block b of m a record when the ledger's rule lets it.
func (j *spoolJudge) record(m hookbus.Message, a state.AgentStatus, b protocol.Block, at time.Time) {
	t := j.t
	ts, isOpen := j.open[b.Task]
	switch {
	case b.Task != a.Task:
		j.refuse(m, "a block for a task the agent did not hold")
		return
	case !isOpen:
		return
	}
	prev, _ := t.store.Load(m.Agent, b.Task)
	latest := t.store.Latest(b.Task, j.prev.RunID, time.Time{})
	for _, r := range []*protocol.Checkpoint{prev, latest} {
		if r != nil && !r.UpdatedAt.Before(at) {
			return // never over a record as new or newer
		}
	}
	o := protocol.Origin{Agent: m.Agent, TaskTitle: ts.Title, SessionID: "spooled", Trigger: protocol.TriggerUnasked,
		StartedAt: at, At: at}
	if prev != nil {
		o.StartedAt, o.Attempt = prev.StartedAt, prev.Attempt
	}
	cp := protocol.NewRecord(b, o)
	if prev != nil && sameAnswer(&cp, prev) {
		return
	}
	rec := t.deps.Recorder()
	if err := rec.Save(&cp); err != nil {
		t.log.Error("spooled checkpoint not saved", "agent", m.Agent, "task", b.Task, "error", err)
		return
	}
	if j.carry {
		rec.Announce(&cp, "(spooled by a hook while warden was down)")
	}
	j.replayed++
}

// sameAnswer reports whether a spooled block says what record r says:
// everything the agent wrote (warden's own fields aside; an empty list and
// none alike).
func sameAnswer(cp, r *protocol.Checkpoint) bool {
	content := func(c protocol.Checkpoint) map[string]any {
		b, _ := json.Marshal(c)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		for _, k := range []string{"checkpoint_id", "run_id", "agent", "task_title", "session_id", "attempt", "trigger", "cause",
			"resumable", "started_at", "updated_at", "completed_at", "next_checkpoint_expected", "git", "mac"} {
			delete(m, k)
		}
		for k, v := range m {
			if v == nil || v == "" || (reflect.ValueOf(v).Kind() == reflect.Slice && reflect.ValueOf(v).Len() == 0) {
				delete(m, k)
			}
		}
		return m
	}
	return reflect.DeepEqual(content(*cp), content(*r))
}
