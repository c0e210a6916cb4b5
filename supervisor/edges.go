package supervisor

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/signalfile"
	"github.com/wardenhq/warden/supervisor/state"
)

// Edge is one of the team's edges, an actor that cmd/warden wires into its
// run.Group beside the team itself: what reaches the team from outside (the
// signal file, the CLIs' hooks, the control socket, the user's keys) and
// what the team tells the outside on its own clock (the dashboard, the
// budget's end). An edge is set up when made — its socket bound, its watch
// or timer armed — so that an agent's first hook and the first `warden ps`
// find it; Run serves until ctx ends, then takes it down.
//
// An edge that fails — it could not be set up, or it died while serving (a
// socket whose listener is gone) — ends its Run with the error, as any
// actor of a run.Group does: the group stops the team cleanly (Team.Fail:
// a team checkpoint) and warden exits 1 with the error, rather than going
// on without the edge. An edge that ends by design (the user's keys, once
// their input ended) is quiet.
type Edge struct {
	Name string
	run  func(ctx context.Context) error
}

// Run holds the edge up until ctx ends, then stops it and returns nil; or
// returns, the edge taken down, the error it failed of (which names the
// edge: "control socket: …").
func (e *Edge) Run(ctx context.Context) error { return e.run(ctx) }

// NewEdge makes an edge of run, which holds until ctx ends and returns nil
// then, or returns the error the edge failed of, naming it (cmd/warden's
// tests; an edge of the team's own is made by its method).
func NewEdge(name string, run func(ctx context.Context) error) *Edge {
	return &Edge{Name: name, run: run}
}

// edge is an edge set up already: it holds until ctx ends, or until failed
// (nil: it cannot fail) gets the error it died of; stop takes it down
// either way.
func edge(name string, stop func(), failed <-chan error) *Edge {
	var once sync.Once
	stop1 := func() { once.Do(stop) }
	return NewEdge(name, func(ctx context.Context) error {
		defer stop1()
		for {
			select {
			case <-ctx.Done():
				return nil
			case err, ok := <-failed:
				switch {
				case !ok || err == nil:
					failed = nil // nothing to say: hold on
				case ctx.Err() != nil:
					return nil // being taken down already
				default:
					return err
				}
			}
		}
	})
}

// broken is an edge that could not be set up: its Run ends at once with err.
func broken(name string, err error) *Edge {
	return NewEdge(name, func(context.Context) error { return err })
}

// SignalWatch turns the signal file's appearance into a team checkpoint
// (fsnotify on its directory, a poll while that cannot be set up).
func (t *Team) SignalWatch() *Edge {
	const name = "signal file watch"
	stop, err := t.watchSignalFile()
	if err != nil {
		return broken(name, err)
	}
	return edge(name, stop, nil)
}

// HookServer routes the messages of the CLIs' hooks (`warden hook`, over
// the hook socket) to their agents' sessions.
func (t *Team) HookServer() *Edge {
	const name = "hook socket"
	stop, failed, err := t.startHookBus()
	if err != nil {
		return broken(name, err)
	}
	return edge(name, stop, failed)
}

// ControlServer serves the control socket: warden ps, screen, attach, send,
// restart, stop, and the page's view of the team.
func (t *Team) ControlServer() *Edge {
	const name = "control socket"
	stop, failed, err := t.startControl()
	if err != nil {
		return broken(name, err)
	}
	return edge(name, stop, failed)
}

// Dashboard prints the dashboard to stdout at most every minute once
// something changed (on a terminal: a footer redrawn every 2 s).
func (t *Team) Dashboard() *Edge { return edge("dashboard", t.printDashboard(t.dashboardEvery), nil) }

// Budget ends the run at max_runtime or stop_at: a team checkpoint, then
// exit. Make it when the run starts: max_runtime counts from then.
func (t *Team) Budget() *Edge { return edge("budget", t.watchBudget(), nil) }

// Keys copies the user's keystrokes to the wrapped agent (warden wrap): it
// ends with the input — quietly: the run goes on, the agent's own keys
// gone —, or with the run (the read it waits in is left to the process's
// exit).
func (t *Team) Keys() *Edge {
	if t.term != nil {
		go t.pumpInput()
	}
	return edge("keys", func() {}, nil)
}

// watchBudget ends the run at the team's budget: max_runtime after the
// start, or stop_at (the next such local time), whichever comes first — a
// team checkpoint, then exit, as after_team_checkpoint = "exit". It returns
// the function that stops watching.
func (t *Team) watchBudget() func() {
	now := t.clock.Now()
	var at time.Time
	var why string
	if d := t.cfg.MaxRuntime; d > 0 {
		at, why = now.Add(d), fmt.Sprintf("max_runtime %s reached", d)
	}
	if stop, ok := t.cfg.NextStop(now); ok && (at.IsZero() || stop.Before(at)) {
		at, why = stop, fmt.Sprintf("stop_at %s reached", t.cfg.StopAt)
	}
	if at.IsZero() {
		return func() {}
	}
	t.log.Info("the run ends at its budget", "at", at, "reason", why)
	done := make(chan struct{})
	go func() {
		select {
		case <-t.clock.After(at.Sub(now)):
			t.spent.Store(true)
			t.trigger(trigger{source: "budget", cause: protocol.CauseBudget, reason: why})
		case <-done:
		}
	}()
	return func() { close(done) }
}

// SetPage makes the team's [[notify]] messages link to its page (warden run
// --http): the page's address, never its token.
func (t *Team) SetPage(url string) {
	if t.notifier != nil {
		t.notifier.SetPage(url)
	}
}

// dialogOf is the text of the dialog agent waits on now ("" none), as warden
// ps shows it: a notification tells its question as the screen has it.
func (t *Team) dialogOf(agent string) string {
	if a := t.agentNamed(agent); a != nil {
		return a.Status().Dialog
	}
	return ""
}

// terminal is the user's own terminal, attached for `warden wrap`: every
// byte the agent writes goes to it, every keystroke goes to the agent, and
// the agent's window follows its size. warden's own typing and the user's
// never interleave inside one submission (the session's input lock).
type terminal struct {
	in  io.Reader
	out io.Writer

	mu   sync.Mutex
	size runner.Size
}

// Output is where the agent's bytes go.
func (t *terminal) Output() io.Writer { return t.out }

// Size is the terminal's window size.
func (t *terminal) Size() runner.Size {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.size
}

// AttachTerminal makes the team's (single) agent run in the user's terminal.
// Call it before Run.
func (t *Team) AttachTerminal(in io.Reader, out io.Writer, size runner.Size) {
	t.term = &terminal{in: in, out: out, size: size}
	t.deps.Term = t.term
	t.deps.Wrap = true
}

// Resize follows the user's terminal (SIGWINCH): the running agents' ptys
// and their screen readers get the new size.
func (t *Team) Resize(size runner.Size) {
	if t.term == nil {
		return
	}
	t.term.mu.Lock()
	t.term.size = size
	t.term.mu.Unlock()
	for _, a := range t.agents {
		if s := a.Session(); s != nil {
			if err := s.Resize(size); err != nil {
				t.log.Warn("resize failed", "agent", a.Name(), "error", err)
			}
		}
	}
}

// pumpInput copies the user's keystrokes to the current session of the
// first agent until the input ends. Keystrokes that arrive while no session
// runs (a restart, a team checkpoint) are dropped.
func (t *Team) pumpInput() {
	buf := make([]byte, 4096)
	a := t.agents[0]
	for {
		n, err := t.term.in.Read(buf)
		if n > 0 {
			if s := a.Session(); s != nil {
				s.Input(buf[:n])
			}
		}
		if err != nil {
			return
		}
	}
}

// signalPoll is the poll of the signal file while its fsnotify watch cannot
// be set up.
const signalPoll = 2 * time.Second

// watchSignalFile turns the appearance of the signal file into a team
// checkpoint; it returns the function that stops watching, or why the file
// cannot be watched. Once set up the watch does not fail: it polls while
// fsnotify cannot watch.
func (t *Team) watchSignalFile() (func(), error) {
	w, err := signalfile.New(t.log, t.cfg.SignalFile, signalPoll) // polls alone when fsnotify cannot start
	if err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-w.C():
				t.SignalFileAppeared()
			case <-stop:
				return
			}
		}
	}()
	return func() {
		close(stop)
		w.Close()
	}, nil
}

// SignalFileAppeared asks for a team checkpoint because the signal file
// appeared (its watch calls it; so does the simulation, which writes the
// file itself), with the cause and reason the file gives, if any.
func (t *Team) SignalFileAppeared() {
	tr := trigger{source: "signal_file", cause: protocol.CauseSignalFile,
		reason: fmt.Sprintf("signal file %s appeared", filepath.Base(t.cfg.SignalFile))}
	if cause, reason, ok := state.ReadSignal(t.cfg.SignalFile); ok {
		tr.cause, tr.reason = cause, reason
	}
	t.trigger(tr)
}

// drainTriggers drops pending team checkpoint requests.
func (t *Team) drainTriggers() {
	for {
		select {
		case <-t.triggers:
		default:
			return
		}
	}
}

// SignalWindow is how close to the signal that began a stop another stop
// signal must come to be the same request: a signal within it is that
// request again, one after it a second request, which forces the stop.
const SignalWindow = time.Second

// StopRequest is what a stop signal asks for (StopSignals.Take).
type StopRequest int

const (
	// StopClean: the first stop signal — a clean stop, a team checkpoint.
	StopClean StopRequest = iota + 1
	// StopSame: a signal within SignalWindow of the first, the same
	// request delivered again: nothing more to do.
	StopSame
	// StopForce: a second request, after SignalWindow: force the stop.
	StopForce
)

// StopSignals decides what each stop signal warden receives (INT, TERM,
// HUP) asks for. The first asks for a clean stop. One that comes within
// SignalWindow of it is the same request delivered twice — a terminal's
// Ctrl-C reaches every process of its foreground group, and a wrapper
// such as `timeout` forwards the signal it got to warden (and to its
// group), so one keypress under `timeout 8h warden run` arrives two or
// three times within milliseconds. Any signal after that window is a
// second request: it forces the stop (a person pressing Ctrl-C again).
type StopSignals struct {
	clock clock.Clock

	mu    sync.Mutex
	first time.Time // when the first stop signal came (zero: none yet)
}

// NewStopSignals returns a StopSignals telling time by clk.
func NewStopSignals(clk clock.Clock) *StopSignals { return &StopSignals{clock: clk} }

// Take is what a stop signal received now asks for.
func (s *StopSignals) Take() StopRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	switch {
	case s.first.IsZero():
		s.first = now
		return StopClean
	case now.Sub(s.first) <= SignalWindow:
		return StopSame
	}
	return StopForce
}
