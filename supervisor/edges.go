package supervisor

import (
	"context"
	"sync"
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
