package supervisor

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/supervisor/state"
)

// printf writes a progress line to warden's stdout.
func (t *Team) printf(format string, a ...any) {
	fmt.Fprintf(t.out, format, a...)
}

// snapshotNow is the team's current state.
func (t *Team) snapshotNow(running bool) state.Snapshot {
	return state.Snapshot{Team: t.cfg.Name, SignalFile: t.cfg.SignalFile, Pid: os.Getpid(), Running: running,
		StartedAt: t.startedAt, UpdatedAt: t.clock.Now(), Tasks: t.queue.Snapshot(), Agents: t.agentStatus()}
}

// publish rewrites state.json and STATUS.md after a change.
func (t *Team) publish() {
	t.pubMu.Lock()
	defer t.pubMu.Unlock()
	t.changes++
	if err := t.dir.WriteSnapshot(t.snapshotNow(true)); err != nil {
		t.log.Error("status not written", "error", err)
	}
	t.hub.Changed()
}

// publishFinal writes the state of a team that is done and returns it.
func (t *Team) publishFinal() state.Snapshot {
	t.pubMu.Lock()
	defer t.pubMu.Unlock()
	s := t.snapshotNow(false)
	if err := t.dir.WriteSnapshot(s); err != nil {
		t.log.Error("status not written", "error", err)
	}
	return s
}

// printDashboard prints the dashboard to stdout every interval while the
// team changes; it returns the function that stops it.
func (t *Team) printDashboard(every time.Duration) func() {
	stop := make(chan struct{})
	go func() {
		printed := -1
		// A display cadence on the wall clock, not a policy on the team's clock.
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
			case <-stop:
				return
			}
			t.pubMu.Lock()
			changes := t.changes
			t.pubMu.Unlock()
			if changes == printed {
				continue
			}
			printed = changes
			var b strings.Builder
			state.RenderDashboard(&b, t.snapshotNow(true), t.clock.Now())
			t.printf("%s", b.String())
		}
	}()
	return func() { close(stop) }
}

// lockedWriter serialises progress lines from many goroutines.
type lockedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	onError func(error) // the first write that failed
}

// Write writes p; once the reader went away (a closed pipe: `warden run |
// head -1`), the lines are dropped and the team goes on.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return len(p), nil
	}
	if _, err := l.w.Write(p); err != nil {
		l.w = nil // EPIPE and the like: nobody reads these lines any more
		if l.onError != nil {
			l.onError(err)
		}
	}
	return len(p), nil
}
