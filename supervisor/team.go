// Package supervisor runs a team of agents from a team file: it starts each
// agent (supervisor/agent) in generations, runs team checkpoints — a last
// checkpoint from everyone, a clean stop, the handoff — and starts the next
// generation from the handoff, and it resumes a team whose supervisor died.
package supervisor

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/agent"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/control"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/hold"
	"github.com/wardenhq/warden/supervisor/land"
	"github.com/wardenhq/warden/supervisor/memory"
	"github.com/wardenhq/warden/supervisor/notify"
	"github.com/wardenhq/warden/supervisor/queue"
	"github.com/wardenhq/warden/supervisor/report"
	"github.com/wardenhq/warden/supervisor/session"
	"github.com/wardenhq/warden/supervisor/state"
	"github.com/wardenhq/warden/supervisor/workspace"
)

// Team supervises the agents of one team file.
type Team struct {
	cfg    *config.Team
	log    hclog.Logger
	clock  clock.Clock
	dir    *state.Dir
	events *state.EventLog
	store  *state.Store
	queue  *queue.Queue
	agents []*agent.Agent
	deps   *agent.Deps
	out    *lockedWriter

	// dashboardEvery is how often `warden run` prints the dashboard, when
	// something changed since the last one.
	dashboardEvery time.Duration

	startedAt time.Time
	// thisRun is the run the team is in (Begin).
	thisRun runInfo
	pubMu   sync.Mutex
	changes int           // publishes so far; the dashboard prints when it moved
	changed chan struct{} // a publish happened (cap 1): wakes the dashboard
	writing bool          // a publish is writing the state files
	pending bool          // a publish came during that write: write again
	written *sync.Cond    // on pubMu: writing went false

	triggers  chan trigger // team checkpoint requests
	userStop  atomic.Bool  // a signal asked warden to stop
	forced    atomic.Bool  // a second signal: kill now
	spent     atomic.Bool  // max_runtime or stop_at reached: exit after the team checkpoint
	atLimit   atomic.Bool  // an account's usage limit with on_limit = "checkpoint-exit": exit 0 after the team checkpoint
	finished  atomic.Bool  // Run has returned
	started   atomic.Bool  // Run has begun: state.json is its to write
	closeOnce sync.Once
	mu        sync.Mutex
	gen       *agent.Generation // the current one
	failure   error             // a team checkpoint that could not write its handoff
	failed    error             // on mu: what Fail stopped the team for

	// term is the user's terminal (warden wrap).
	term *terminal
	// pinned holds the records `--resume --from` chose, by task.
	pinned sync.Map
	// keyPath is the key the store seals records with (state.KeyPath).
	keyPath string
	// from is the record ResumeFrom chose, which Begin pins (nil: none).
	from *protocol.Checkpoint
	// notifier runs the team's [[notify]] commands (nil: none).
	notifier *notify.Notifier
	// hub tells the control socket's watchers (the page) of events and
	// changes; hurry cuts a team checkpoint's wait for the last
	// checkpoints short (warden stop --now).
	hub   *control.Hub
	hurry chan struct{}
	// refusals counts refused hook messages by agent (hooks.go).
	hookMu   sync.Mutex
	refusals map[string]hookRefusals
	// spend is what the run spent and its budgets (spend.go).
	spend spendBook
	// landed is the run's own land (land_by, landrun.go).
	landed landRun
	// hold is the team's holder (holder = true; nil: none), holder.go;
	// held: what a holder found on its socket held for a dead warden.
	hold *hold.Hold
	held heldState
	// upgrade is what `warden upgrade` needs and what it left (upgrade.go).
	upgrade upgradeState
}

// Result is how a team run ended.
type Result struct {
	Agents  []state.AgentStatus
	Tasks   []queue.Status
	Stopped bool // stopped by the user (signal)
	// Err: the team could not be checkpointed (no handoff), or warden
	// failed (Fail: one of its edges) and stopped it.
	Err error
	// AtLimit: the run ended at an account's usage limit (on_limit =
	// "checkpoint-exit"), to be carried on after the reset.
	AtLimit bool
	// Land is the land the run made itself (land_by: before it ended);
	// nil when it made none.
	Land *land.Result
	// LandErr: the land could not be made at all.
	LandErr error
}

// ExitCode maps a result to warden's exit codes (DESIGN §2): 0 every agent
// finished well, 1 one failed, 130 stopped by the user.
func (r Result) ExitCode() int {
	if r.Err != nil {
		return 1
	}
	if r.Stopped {
		return 130
	}
	if r.AtLimit {
		return r.atLimitCode()
	}
	if len(r.Tasks) > 0 {
		for _, t := range r.Tasks {
			if t.State != queue.Complete && t.Lands == "" { // a land task's end is the land's, in Land
				return 1
			}
		}
		return 0
	}
	for _, a := range r.Agents {
		if a.State == state.Failed || (a.State == state.Exited && a.ExitCode != 0) {
			return 1
		}
	}
	return 0
}

// New prepares a team: it opens and locks the state directory and opens the
// event log. Nothing starts until Run. Progress lines (CHECKPOINT: …,
// warnings, the dashboard) go to out.
func New(logger hclog.Logger, cfg *config.Team, clk clock.Clock, out io.Writer) (*Team, error) {
	dir, err := state.Open(cfg.StateDir)
	if err != nil {
		return nil, err
	}
	if err := dir.Lock(); err != nil {
		return nil, err
	}
	if err := dir.PrepareSockets(); err != nil {
		dir.Unlock()
		return nil, err
	}
	log := logger.Named("supervisor").With("team", cfg.Name)
	events, err := state.OpenEventLog(log.Named("events"), dir.Events(), clk.Now)
	if err != nil {
		dir.Unlock()
		return nil, err
	}
	st, err := state.NewStore(log, dir.Checkpoints(), clk.Now)
	if err != nil {
		events.Close()
		dir.Unlock()
		return nil, err
	}
	st.SetRetention(cfg.Retention)
	// Records are sealed with a key outside the state dir, so that a run
	// carried on trusts only what warden wrote (issue 33, seal.go).
	keyPath, err := state.KeyPath(os.Getenv)
	var key []byte
	if err == nil {
		key, err = state.LoadKey(keyPath)
	}
	if err != nil {
		events.Close()
		dir.Unlock()
		return nil, fmt.Errorf("%w (warden seals its checkpoint records with it: set XDG_STATE_HOME to a private directory of yours)", err)
	}
	st.SetKey(key)
	t := &Team{cfg: cfg, log: log, clock: clk, dir: dir, events: events, store: st, refusals: map[string]hookRefusals{},
		out: &lockedWriter{w: out}, triggers: make(chan trigger, 16), dashboardEvery: time.Minute,
		changed: make(chan struct{}, 1)}
	t.written = sync.NewCond(&t.pubMu)
	t.out.onError = func(err error) {
		log.Warn("stdout closed: progress lines are dropped from now on; the team goes on", "error", err)
	}
	events.OnError = func(err error) {
		if err != nil {
			t.printf("WARNING: events.jsonl cannot be written (%v): events are lost until it can\n", err)
		}
	}
	if len(cfg.Notify) > 0 {
		t.notifier = notify.New(log, cfg.Name, cfg.Notify, clk)
		t.notifier.SetDialogs(t.dialogOf)
	}
	t.hub, t.hurry = control.NewHub(eventsKept), make(chan struct{}, 1)
	t.hub.Seed(tailLines(dir.Events(), eventsKept)) // the page shows what came before this run
	events.OnEmit = func(e state.Event, line []byte) {
		if t.notifier != nil {
			t.notifier.Notify(notify.Event{Name: e.Event, Agent: e.Agent, Task: e.Task, JSON: line})
		}
		t.hub.Event(line)
	}
	t.queue = queue.New(teamTasks(cfg))
	t.queue.SetClock(clk.Now) // time worked so far, on the team's clock
	st.OnRestore = t.restored
	t.deps = &agent.Deps{Config: cfg, Timers: sessionTimers(cfg), Team: agentTeam{t}, Log: log, Clock: clk, Dir: dir,
		Events: events, Store: st, Queue: t.queue, WardenBin: wardenExecutable(), HasTasks: t.queue.Len() > 0}
	for i := range cfg.Agents {
		if cfg.Workspace(&cfg.Agents[i]) == config.WorkspaceWorktree && t.deps.Workspaces == nil {
			t.deps.Workspaces = agent.NewWorkspaces(workspace.New(log.Named("git")), cfg, dir.Layout, events, t.printf)
		}
	}
	t.deps.Overlaps = agent.NewOverlaps(t.deps) // on_overlap: before the agents, who join it
	t.queue.OnEnd(t.deps.Overlaps.Ended)
	t.deps.Reviews = agent.NewReviews()             // review_by: before the agents, who join it
	t.deps.Memory = memory.NewMemory(cfg, clk, log) // max_running, memory_floor, memory_max, agent_oom, the box
	t.deps.Memory.Hide(keyPath)                     // behind the box's walls: no agent reads the record key
	if err := t.readOnlyStateDir(); err != nil {    // … nor writes the state dir (walls.go)
		events.Close()
		dir.Unlock()
		return nil, err
	}
	if t.notifier != nil && cfg.Sandbox == config.SandboxBox {
		t.notifier.SetBox(t.deps.Memory.CommandBox)
	}
	for _, a := range cfg.Agents {
		t.agents = append(t.agents, agent.New(a, t.deps))
	}
	t.deps.Accounts = newAccounts(t)
	t.keyPath = keyPath
	return t, nil
}

// OnRecord makes fn see every checkpoint right after it is on disk
// (benchmarks). Call it before Run.
func (t *Team) OnRecord(fn func(cp *protocol.Checkpoint, at time.Time)) { t.deps.OnRecord = fn }

// Seams are what the team core's simulation (supervisor/sim) replaces:
// how a session starts its agent's process, and how a task's verify
// command runs. Production leaves both nil: a program under a pty, and
// queue.Verify.
type Seams struct {
	Start  session.Starter
	Verify func(ctx context.Context, argv []string, dir string) queue.VerifyResult
}

// Use sets the team's seams. Call it before Run.
func (t *Team) Use(s Seams) { t.deps.Start, t.deps.Verify = s.Start, s.Verify }

// Control is the team as the control socket serves it (warden ps, send,
// restart, stop): the simulation acts on the team through it, as a person
// does through the socket.
func (t *Team) Control() control.Team { return controlTeam{t} }

// Run runs the team's generations: it starts every agent and returns when
// all of them are done for good, or when the team was stopped and every
// process group is gone. A team checkpoint in between stops the team,
// writes the handoff and, with after_team_checkpoint = "rehydrate", starts
// a fresh generation of sessions. The team's edges (edges.go) run beside it
// as actors of their own; Close, once every actor ended, releases the state
// dir.
func (t *Team) Run() Result {
	t.log.Info("team starting", "agents", len(t.agents), "tasks", t.queue.Len(), "state_dir", t.dir.Root)
	t.startedAt = t.clock.Now()
	if t.thisRun.id == "" { // Begin was not called: a new run
		t.Begin(StartFresh)
	}
	t.started.Store(true)
	t.publish()
	handoffText := ""
	for n := 1; ; n++ {
		g := agent.NewGeneration(n, handoffText, len(t.agents))
		t.setGen(g)
		done := t.startAgents(g)
		var tr trigger
	wait:
		select {
		case <-done:
			if t.landStep() { // a land task handed to land_by: the team goes on for it (landrun.go)
				done = t.startAgent(g, t.cfg.LandBy)
				goto wait
			}
			g.Release()
			return t.result()
		case tr = <-t.triggers:
		}
		t.waitTakeBacks() // holder.go
		text, err := t.teamCheckpoint(g, tr, done)
		g.Release()
		t.drainTriggers() // what came during the checkpoint is folded into it
		if err != nil {
			t.failure = err
			break
		}
		if t.userStop.Load() || t.spent.Load() || t.atLimit.Load() || t.failedWith() != nil {
			break
		}
		if !t.queue.Open() {
			// Every task ended by the team checkpoint: the run's land
			// (land_by), which may hand a land task on to a fresh
			// generation, whatever after_team_checkpoint says.
			if !t.landStep() {
				break
			}
		} else if t.cfg.AfterTeamCheckpoint == config.AfterExit {
			break
		}
		handoffText = text
		t.events.Emit(event.TeamRehydrated, "", "", "generation", n+1, "open_tasks", t.queue.OpenCount())
		t.log.Info("team rehydrating", "generation", n+1)
	}
	return t.result()
}

// startAgents runs every agent in generation g; done closes when all return.
func (t *Team) startAgents(g *agent.Generation) <-chan struct{} {
	var wg sync.WaitGroup
	for _, a := range t.agents {
		wg.Go(func() { a.Run(g) })
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}

func (t *Team) result() Result {
	t.finished.Store(true)
	snap := t.publishFinal()
	t.deps.Accounts.Close()
	t.deps.Memory.Close() // the RSS watch ends, warden's cgroup goes
	res := Result{Stopped: t.userStop.Load(), Agents: snap.Agents, Tasks: snap.Tasks, Err: t.failure, AtLimit: t.atLimit.Load(),
		Land: t.landed.res, LandErr: t.landed.err}
	if res.Err == nil {
		res.Err = t.failedWith()
	}
	c := queue.Counts(snap.Tasks)
	kv := []any{"exit_code", res.ExitCode(), "tasks_complete", c[queue.Complete], "tasks_failed", c[queue.Failed], "tasks", len(snap.Tasks)}
	t.events.Emit(event.TeamDone, "", "", append(kv, t.morningReport(res.ExitCode())...)...)
	t.log.Info("team done", "exit_code", res.ExitCode())
	return res
}

// morningReport writes report.md for the run that just ended and returns
// what team_done carries of it: the report (bounded: report.EventMax) and
// its file, for a [[notify]] rule on team_done.
func (t *Team) morningReport(exitCode int) []any {
	r, err := report.AtEnd(t.dir.Root, t.clock.Now(), exitCode)
	switch {
	case r == nil:
		t.log.Error("the run's report", "error", err)
		return nil
	case err != nil: // built, not written
		t.log.Error("the run's report", "error", err)
		return []any{"report", r.Bounded(report.EventMax)}
	}
	return []any{"report", r.Bounded(report.EventMax), "report_file", report.Path(t.dir.Root)}
}

// Stop asks for a clean stop, as Ctrl-C or SIGTERM does: a team checkpoint,
// then exit (130 when byUser). A stop during a team checkpoint is folded
// into it.
func (t *Team) Stop(byUser bool) {
	if t.finished.Load() {
		return
	}
	if byUser {
		t.userStop.Store(true)
	}
	t.stopLanding() // a land under way ends (landrun.go)
	t.trigger(trigger{source: "signal", cause: protocol.CauseUserInterrupt, reason: "stopped by the user (a signal)"})
}

// Fail stops the team cleanly because warden itself failed — one of its
// edges (Edge.Run) could not be set up or died —: a team checkpoint (cause
// warden_failed, err its reason), then exit 1 with err (Result.Err) rather
// than a run that goes on without the edge. The first failure is the one
// kept.
func (t *Team) Fail(err error) {
	if err == nil || t.finished.Load() {
		return
	}
	t.mu.Lock()
	if t.failed == nil {
		t.failed = err
	}
	t.mu.Unlock()
	t.trigger(trigger{source: "failure", cause: protocol.CauseWardenFailed, reason: err.Error()})
}

// failedWith is what Fail stopped the team for (nil: nothing).
func (t *Team) failedWith() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

// Force kills every process group now (a second signal).
func (t *Team) Force() {
	t.Stop(true)
	if t.forced.Swap(true) {
		return
	}
	t.log.Warn("forced stop: killing every process group now")
	if g := t.currentGen(); g != nil {
		g.Force()
	}
}

func (t *Team) setGen(g *agent.Generation) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gen = g
	if t.forced.Load() {
		g.Force()
	}
}

func (t *Team) currentGen() *agent.Generation {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gen
}

// Close ends the team's notifications (team_done's included, within a
// bound), closes its event log and releases the state dir: once the team
// and every edge have ended, or when it is not run after all (Begin found
// the run finished). Later calls do nothing.
func (t *Team) Close() { t.closeOnce.Do(t.close) }

// notifyAtExit bounds how long warden's exit waits for the notify commands
// still queued or running (team_done's): the stop budgets of the scheduler
// examples keep 5 s beyond the team's timeouts for the handoff and this.
const notifyAtExit = 3 * time.Second

func (t *Team) close() {
	if t.notifier != nil {
		// Notifications still queued or running (team_done among them)
		// get notifyAtExit to finish, then are killed with everything they
		// started: a hanging command never holds warden's exit.
		ctx, cancel := context.WithTimeout(context.Background(), notifyAtExit)
		if err := t.notifier.Close(ctx); err != nil {
			t.log.Warn("notify commands still running at exit were killed", "after", notifyAtExit, "error", err)
		}
		cancel()
	}
	t.endHolder()
	t.events.Close()
	t.dir.Unlock()
}

// teamTasks is the team's task list; a team without [[task]] gets one task
// per agent that carries a prompt of its own, owned by that agent.
func teamTasks(cfg *config.Team) []config.Task {
	if len(cfg.Tasks) > 0 {
		return cfg.Tasks
	}
	var tasks []config.Task
	for _, a := range cfg.Agents {
		if a.Prompt != "" {
			tasks = append(tasks, config.Task{ID: a.Name, Title: "prompt of agent " + a.Name, Prompt: a.Prompt, Agent: a.Name, Pos: a.Pos})
		}
	}
	return tasks
}

// wardenExecutable is the binary the CLIs' hooks run (`warden hook KIND`).
func wardenExecutable() string {
	if p := os.Getenv("WARDEN_BIN"); p != "" {
		return p
	}
	p, err := os.Executable()
	if err != nil {
		return "warden"
	}
	return p
}

// sortedStatus lists the agents' states by name.
func (t *Team) agentStatus() []state.AgentStatus {
	out := make([]state.AgentStatus, 0, len(t.agents))
	for _, a := range t.agents {
		out = append(out, a.Status())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// HideFromAgents adds paths the box's walls hide from every process of an
// agent (the page's token); call it before Begin.
func (t *Team) HideFromAgents(paths ...string) { t.deps.Memory.Hide(paths...) }
