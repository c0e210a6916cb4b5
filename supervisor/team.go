// Package supervisor runs a team of agents from a team file: it starts each
// agent under its own pty, restarts it by its policy, and stops the whole
// team cleanly.
package supervisor

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/store"
)

// Team supervises the agents of one team file.
type Team struct {
	cfg    *config.Team
	log    hclog.Logger
	clock  clock.Clock
	dir    *StateDir
	events *EventLog
	store  *store.Store
	queue  *Queue
	agents []*agent
	out    *lockedWriter

	// hasTasks: agents take tasks from the queue; else each runs on its own
	// (with its prompt as a task of its own, if it has one).
	hasTasks  bool
	startedAt time.Time
	// resumeFrom: checkpoints older than this are not offered to sessions (a
	// fresh run starts its tasks over; --resume sets it to zero).
	resumeFrom time.Time
	pubMu      sync.Mutex
	changes    int // publishes so far; the dashboard prints when it moved

	triggers chan trigger // team checkpoint requests
	userStop atomic.Bool  // a signal asked warden to stop
	forced   atomic.Bool  // a second signal: kill now
	finished atomic.Bool  // Run has returned
	mu       sync.Mutex
	gen      *generation // the current one
	failure  error       // a team checkpoint that could not write its handoff

	// term is the user's terminal (warden wrap); wrap ends the run when the
	// agent exits on its own, with its exit code.
	term *terminal
	wrap bool
	// wardenBin is the warden executable the CLIs' hooks run.
	wardenBin string

	// onRecord, for benchmarks, sees every checkpoint right after it is on disk.
	onRecord func(cp *store.Checkpoint, at time.Time)
}

// AgentStatus is one agent's state as the dashboard and the result see it.
type AgentStatus struct {
	Name    string `json:"name"`
	State   string `json:"state"`
	Pid     int    `json:"pid,omitempty"`
	Attempt int    `json:"attempt"`
	Exit    string `json:"exit,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Task    string `json:"task,omitempty"`
	// ExitCode is the last process's exit code (128+N when killed by signal N).
	ExitCode int `json:"exit_code"`
	// Context is the agent's context gauge in percent, where its CLI reports one.
	Context float64 `json:"context_percent,omitempty"`
	// PausedUntil: waiting for a usage limit to reset.
	PausedUntil time.Time `json:"paused_until,omitzero"`

	LastCheckpoint time.Time `json:"last_checkpoint,omitzero"`
}

// Result is how a team run ended.
type Result struct {
	Agents  []AgentStatus
	Tasks   []TaskStatus
	Stopped bool  // stopped by the user (signal)
	Err     error // the team could not be checkpointed (no handoff)
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
	if len(r.Tasks) > 0 {
		for _, t := range r.Tasks {
			if t.State != TaskComplete {
				return 1
			}
		}
		return 0
	}
	for _, a := range r.Agents {
		if a.State == StateFailed || (a.State == StateExited && a.Exit != "exit code 0") {
			return 1
		}
	}
	return 0
}

// New prepares a team: it opens and locks the state directory and opens the
// event log. Nothing starts until Run. Progress lines (CHECKPOINT: …,
// warnings, the dashboard) go to out.
func New(logger hclog.Logger, cfg *config.Team, clk clock.Clock, out io.Writer) (*Team, error) {
	dir, err := OpenStateDir(cfg.StateDir)
	if err != nil {
		return nil, err
	}
	if err := dir.Lock(); err != nil {
		return nil, err
	}
	events, err := OpenEventLog(dir.Path("events.jsonl"), clk.Now)
	if err != nil {
		dir.Unlock()
		return nil, err
	}
	log := logger.Named("supervisor").With("team", cfg.Name)
	st, err := store.New(log, dir.Path("checkpoints"), clk.Now)
	if err != nil {
		events.Close()
		dir.Unlock()
		return nil, err
	}
	t := &Team{cfg: cfg, log: log, clock: clk, dir: dir, events: events, store: st,
		out: &lockedWriter{w: out}, triggers: make(chan trigger, 16), wardenBin: wardenExecutable()}
	t.queue = NewQueue(teamTasks(cfg))
	t.resumeFrom = clk.Now()
	t.hasTasks = len(t.queue.tasks) > 0
	for _, a := range cfg.Agents {
		t.agents = append(t.agents, newAgent(t, a))
	}
	return t, nil
}

// Run starts every agent and returns when all of them are done for good, or
// when the team was stopped and every process group is gone. A team
// checkpoint in between stops the team, writes the handoff and, with
// after_team_checkpoint = "rehydrate", starts a fresh generation of sessions.
func (t *Team) Run() Result {
	defer t.close()
	t.log.Info("team starting", "agents", len(t.agents), "tasks", len(t.queue.tasks), "state_dir", t.dir.Root)
	t.startedAt = t.clock.Now()
	t.publish()
	stopWatch := t.watchSignalFile()
	defer stopWatch()
	stopDashboard := t.printDashboard(DashboardEvery)
	defer stopDashboard()
	stopBus := t.startHookBus()
	defer stopBus()
	if t.term != nil {
		go t.pumpInput()
	}
	handoffText := ""
	for n := 1; ; n++ {
		g := newGeneration(n, handoffText, len(t.agents))
		t.setGen(g)
		done := t.startAgents(g)
		var tr trigger
		select {
		case <-done:
			g.release()
			t.finish()
			return t.result()
		case tr = <-t.triggers:
		}
		text, err := t.teamCheckpoint(g, tr, done)
		g.release()
		t.drainTriggers() // what came during the checkpoint is folded into it
		if err != nil {
			t.failure = err
			break
		}
		if t.userStop.Load() || t.cfg.AfterTeamCheckpoint == config.AfterExit || !t.queue.Open() {
			break
		}
		handoffText = text
		t.events.Emit(EvTeamRehydrated, "", "", "generation", n+1, "open_tasks", t.queue.openCount())
		t.log.Info("team rehydrating", "generation", n+1)
	}
	t.finish()
	return t.result()
}

// startAgents runs every agent in generation g; done closes when all return.
func (t *Team) startAgents(g *generation) <-chan struct{} {
	var wg sync.WaitGroup
	for _, a := range t.agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.run(g)
		}()
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}

func (t *Team) finish() {
	t.finished.Store(true)
}

func (t *Team) result() Result {
	snap := t.publishFinal()
	res := Result{Stopped: t.userStop.Load(), Agents: snap.Agents, Tasks: snap.Tasks, Err: t.failure}
	t.log.Info("team done", "exit_code", res.ExitCode())
	return res
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
	t.trigger(trigger{source: "signal", reason: "stopped by the user"})
}

// Force kills every process group now (a second signal).
func (t *Team) Force() {
	t.Stop(true)
	if t.forced.Swap(true) {
		return
	}
	t.log.Warn("forced stop: killing every process group now")
	if g := t.currentGen(); g != nil {
		g.force()
	}
}

func (t *Team) trigger(tr trigger) {
	select {
	case t.triggers <- tr:
	default: // one is pending already; this one folds into it
	}
}

func (t *Team) setGen(g *generation) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gen = g
	if t.forced.Load() {
		g.force()
	}
}

func (t *Team) currentGen() *generation {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gen
}

func (t *Team) close() {
	t.events.Close()
	t.dir.Unlock()
}

// envList turns the team file's env table into K=V pairs, in a stable order.
func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func signalName(s syscall.Signal) string {
	if s == 0 {
		return ""
	}
	return fmt.Sprintf("%s", s)
}
