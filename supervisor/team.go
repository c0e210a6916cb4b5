// Package supervisor runs a team of agents from a team file: it starts each
// agent under its own pty, restarts it by its policy, and stops the whole
// team cleanly.
package supervisor

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"
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
	pubMu     sync.Mutex

	stopOnce  sync.Once
	stopping  chan struct{} // closed when the team begins to stop
	forceOnce sync.Once
	mu        sync.Mutex
	shutdown  context.Context
	cancel    context.CancelFunc
	byUser    bool
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

	LastCheckpoint time.Time `json:"last_checkpoint,omitzero"`
}

// Result is how a team run ended.
type Result struct {
	Agents  []AgentStatus
	Tasks   []TaskStatus
	Stopped bool // stopped by the user (signal)
}

// ExitCode maps a result to warden's exit codes (DESIGN §2): 0 every agent
// finished well, 1 one failed, 130 stopped by the user.
func (r Result) ExitCode() int {
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
		out: &lockedWriter{w: out}, stopping: make(chan struct{})}
	t.queue = NewQueue(teamTasks(cfg))
	t.hasTasks = len(t.queue.tasks) > 0
	for _, a := range cfg.Agents {
		t.agents = append(t.agents, newAgent(t, a))
	}
	return t, nil
}

// Run starts every agent and returns when all of them are done for good, or
// when the team was stopped and every process group is gone.
func (t *Team) Run() Result {
	defer t.close()
	t.log.Info("team starting", "agents", len(t.agents), "tasks", len(t.queue.tasks), "state_dir", t.dir.Root)
	t.startedAt = t.clock.Now()
	t.publish()
	var wg sync.WaitGroup
	for _, a := range t.agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.run()
		}()
	}
	wg.Wait()
	t.Stop(false) // nothing runs any more; a late signal has nothing to stop
	snap := t.publishFinal()
	res := Result{Stopped: t.stoppedByUser(), Agents: snap.Agents, Tasks: snap.Tasks}
	t.log.Info("team done", "exit_code", res.ExitCode())
	return res
}

// Stop begins a clean stop: TERM to every process group at once, one shared
// shutdown_timeout deadline, then KILL. byUser marks a stop by signal.
func (t *Team) Stop(byUser bool) {
	t.stopOnce.Do(func() {
		t.mu.Lock()
		t.byUser = byUser
		t.shutdown, t.cancel = context.WithTimeout(context.Background(), t.cfg.ShutdownTimeout)
		t.mu.Unlock()
		if byUser {
			t.log.Info("team stopping", "shutdown_timeout", t.cfg.ShutdownTimeout)
		}
		close(t.stopping)
	})
}

// Force kills every process group now (a second signal).
func (t *Team) Force() {
	t.Stop(true)
	t.forceOnce.Do(func() {
		t.log.Warn("forced stop: killing every process group now")
		t.shutdownCtx()
		t.cancel()
	})
}

func (t *Team) shutdownCtx() context.Context {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.shutdown
}

func (t *Team) isStopping() bool {
	select {
	case <-t.stopping:
		return true
	default:
		return false
	}
}

func (t *Team) stoppedByUser() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byUser
}

func (t *Team) close() {
	if t.cancel != nil {
		t.cancel()
	}
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
