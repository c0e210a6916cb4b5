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

// printf writes a progress line of the team's own to warden's stdout.
func (t *Team) printf(format string, a ...any) { t.printfAbout("", format, a...) }

// printfAbout writes a progress line about agent ("" for the team) to
// warden's stdout. Where stdout is no terminal — a file, a pipe, nohup,
// CI — the line ends with when it was printed and the agent it is about,
// `  [w1 2026-11-23 03:14:05]`, so that a log read the next morning says
// both; on a terminal the person reads the lines as they come, and they
// stay as they are (stamp).
func (t *Team) printfAbout(agent, format string, a ...any) {
	text := fmt.Sprintf(format, a...)
	if !t.out.isFooter() {
		text = stamp(text, agent, t.clock.Now())
	}
	_, _ = io.WriteString(t.out, text)
}

// Out is stdout as the team prints its lines: each write is printed as
// one of the team's own (stamped where stdout is no terminal), for the
// lines warden run prints beside the team's (DASHBOARD, STOPPED).
func (t *Team) Out() io.Writer { return teamLines{t} }

type teamLines struct{ t *Team }

func (w teamLines) Write(p []byte) (int, error) {
	w.t.printf("%s", p)
	return len(p), nil
}

// checkpointComplete is the line a team checkpoint ends with: alone on its
// line, never stamped (DESIGN §2).
const checkpointComplete = "CHECKPOINT COMPLETE"

// stamp ends the first line of text with the time (local, to the second)
// and agent, when named: text of several lines (the dashboard) is stamped
// once. The start of every line stays as it was (`CHECKPOINT: T1 -
// implementing (50%)` is still found by its start), and CHECKPOINT
// COMPLETE stays alone on its line.
func stamp(text, agent string, at time.Time) string {
	first, rest, more := strings.Cut(text, "\n")
	if first == "" || first == checkpointComplete {
		return text
	}
	when := at.Local().Format(time.DateTime)
	if agent != "" {
		when = agent + " " + when
	}
	first += "  [" + when + "]"
	if more {
		return first + "\n" + rest
	}
	return first
}

// snapshotNow is the team's current state.
func (t *Team) snapshotNow(running bool) state.Snapshot {
	usage, budget := t.spendNow()
	return state.Snapshot{Team: t.cfg.Name, RunID: t.thisRun.id, RunStartedAt: t.thisRun.started, Specs: t.thisRun.specs, CarriedOn: t.thisRun.carried,
		SignalFile: t.cfg.SignalFile, Pid: os.Getpid(), Running: running,
		StartedAt: t.startedAt, UpdatedAt: t.clock.Now(), Tasks: t.queue.Snapshot(), Agents: t.agentStatus(),
		Usage: usage, Budget: budget, Overlaps: t.deps.Overlaps.Current(), Land: t.landState()}
}

// publish rewrites state.json and STATUS.md after a change. When no write
// is under way it writes before it returns, as always; publishes that come
// during a write are coalesced into one more write, with the state as it
// is then, made by a goroutine of its own so that no caller waits for more
// than one write. (100 agents starting at once changed state ~200 times,
// and each write — two files, each with an fsync — was of all 100 agents.)
func (t *Team) publish() {
	if !t.started.Load() {
		return // Begin's changes (a replayed spool) are written when Run starts
	}
	t.pubMu.Lock()
	defer t.pubMu.Unlock()
	t.changes++
	select {
	case t.changed <- struct{}{}:
	default: // the dashboard has been woken already
	}
	if t.writing {
		t.pending = true // written after the write under way
		return
	}
	t.writing = true
	t.writeLocked()
}

// writeLocked writes the state files (pubMu held, released during the
// write, writing set). Changes published meanwhile are written by a
// goroutine that takes over; otherwise writing ends. Each write tells the
// dashboard page's hub.
func (t *Team) writeLocked() {
	s := t.snapshotNow(true)
	t.pending = false
	t.pubMu.Unlock()
	err := t.dir.WriteSnapshot(s)
	t.pubMu.Lock()
	if err != nil {
		t.log.Error("status not written", "error", err)
	}
	t.hub.Changed() // the dashboard page's watchers: the state on disk is new
	if t.pending {
		go func() {
			t.pubMu.Lock()
			defer t.pubMu.Unlock()
			t.writeLocked()
		}()
		return
	}
	t.writing = false
	t.written.Broadcast()
}

// publishFinal writes the state of a team that is done and returns it,
// after any write under way.
func (t *Team) publishFinal() state.Snapshot {
	t.pubMu.Lock()
	defer t.pubMu.Unlock()
	for t.writing {
		t.written.Wait()
	}
	s := t.snapshotNow(false)
	s.Ended = state.EndedStopped
	if !t.queue.Open() {
		s.Ended = state.EndedFinished // no task can make progress: the next run is a new one
	}
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

// printDashboard prints the dashboard to stdout at most every interval,
// once something changed since the last one, and sleeps while nothing
// changes (an idle team is never woken for it) — or hands it to a Footer
// every footerEvery, changed or not, last when it stops —; it returns the
// function that stops it.
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
		next := time.Now().Add(every)
		for {
			if !footer {
				select {
				case <-t.changed:
				case <-stop:
					return
				}
			}
			wait := time.NewTimer(time.Until(next))
			select {
			case <-wait.C:
			case <-stop:
				wait.Stop()
				return
			}
			next = time.Now().Add(every)
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
