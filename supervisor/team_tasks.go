package supervisor

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"

	"github.com/wardenhq/warden/supervisor/config"
)

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

// nextTask waits for a task the agent may take; nil when none is left for it
// or the team stops.
func (t *Team) nextTask(g *generation, a *agent) *config.Task {
	for {
		changed := t.queue.Changed()
		if task := t.queue.Take(a.cfg.Name); task != nil {
			t.events.Emit(EvTaskDispatched, a.cfg.Name, task.ID, "title", task.Title)
			t.log.Info("task dispatched", "agent", a.cfg.Name, "task", task.ID)
			return task
		}
		if !t.queue.Open() || g.isStopping() {
			return nil
		}
		select {
		case <-changed:
		case <-g.checkpointing:
			return nil
		}
	}
}

// agentFailed fails the agent's task and the tasks only it may take.
func (t *Team) agentFailed(a *agent, task *config.Task, reason string) {
	for _, id := range t.queue.AgentFailed(a.cfg.Name, taskID(task), "agent "+a.cfg.Name+" failed: "+reason) {
		t.events.Emit(EvTaskFailed, a.cfg.Name, id, "reason", reason)
		t.printf("TASK FAILED: %s (agent %s failed: %s)\n", id, a.cfg.Name, reason)
	}
	t.publish()
}

// shutdownTimeoutCtx bounds stopping one agent's process by shutdown_timeout.
func (t *Team) shutdownTimeoutCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), t.cfg.ShutdownTimeout)
}

// printf writes a progress line to warden's stdout.
func (t *Team) printf(format string, a ...any) {
	fmt.Fprintf(t.out, format, a...)
}

// snapshotNow is the team's current state.
func (t *Team) snapshotNow(running bool) Snapshot {
	s := Snapshot{Team: t.cfg.Name, SignalFile: t.cfg.SignalFile, Pid: os.Getpid(), Running: running, StartedAt: t.startedAt,
		UpdatedAt: t.clock.Now(), Tasks: t.queue.Snapshot()}
	for _, a := range t.agents {
		s.Agents = append(s.Agents, a.snapshot())
	}
	sort.Slice(s.Agents, func(i, j int) bool { return s.Agents[i].Name < s.Agents[j].Name })
	return s
}

// publish rewrites state.json and STATUS.md after a change.
func (t *Team) publish() {
	t.pubMu.Lock()
	defer t.pubMu.Unlock()
	t.changes++
	if err := writeStatus(t.dir, t.snapshotNow(true)); err != nil {
		t.log.Error("status not written", "error", err)
	}
}

// publishFinal writes the state of a team that is done and returns it.
func (t *Team) publishFinal() Snapshot {
	t.pubMu.Lock()
	defer t.pubMu.Unlock()
	s := t.snapshotNow(false)
	if err := writeStatus(t.dir, s); err != nil {
		t.log.Error("status not written", "error", err)
	}
	return s
}

// lockedWriter serialises progress lines from many goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return len(p), nil
	}
	return l.w.Write(p)
}
