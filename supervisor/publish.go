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

// Footer is implemented by an out that keeps the dashboard below the
// progress lines, redrawn in place (a terminal: internal/console). It gets
// the dashboard every footerEvery, changed or not (its ages move on).
type Footer interface{ Footer(text string) }

// footerEvery is how often a Footer gets the dashboard.
const footerEvery = 2 * time.Second

// printDashboard prints the dashboard to stdout every interval while the
// team changes — or hands it to a Footer, last when it stops —; it returns
// the function that stops it.
func (t *Team) printDashboard(every time.Duration) func() {
	footer := t.out.isFooter()
	if footer {
		every = min(every, footerEvery)
	}
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
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
			if changes == printed && !footer {
				continue
			}
			printed = changes
			var b strings.Builder
			state.RenderDashboard(&b, t.snapshotNow(true), t.clock.Now())
			if !t.out.footer(b.String()) {
				t.printf("%s", b.String())
			}
		}
	}()
	return func() {
		close(stop)
		<-stopped
		if footer { // the footer stays on the screen: it shows how the run ended
			var b strings.Builder
			state.RenderDashboard(&b, t.snapshotNow(false), t.clock.Now())
			t.out.footer(b.String())
		}
	}
}

// lockedWriter serialises progress lines from many goroutines.
type lockedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	onError func(error) // the first write that failed
}

// isFooter reports whether the writer shows a footer (Footer).
func (l *lockedWriter) isFooter() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.w.(Footer)
	return ok
}

// footer hands text to a Footer, reporting false when there is none (or it
// went away).
func (l *lockedWriter) footer(text string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, ok := l.w.(Footer)
	if ok {
		f.Footer(text)
	}
	return ok
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
