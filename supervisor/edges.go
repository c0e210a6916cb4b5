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
type Edge struct {
	Name string
	stop func()
}

// Run holds the edge up until ctx ends, then stops it.
func (e *Edge) Run(ctx context.Context) error {
	<-ctx.Done()
	e.stop()
	return nil
}

func edge(name string, stop func()) *Edge {
	var once sync.Once
	return &Edge{Name: name, stop: func() { once.Do(stop) }}
}

// SignalWatch turns the signal file's appearance into a team checkpoint
// (fsnotify on its directory, a poll while that cannot be set up).
func (t *Team) SignalWatch() *Edge { return edge("signal file", t.watchSignalFile()) }

// HookServer routes the messages of the CLIs' hooks (`warden hook`, over
// the hook socket) to their agents' sessions.
func (t *Team) HookServer() *Edge { return edge("hook socket", t.startHookBus()) }

// ControlServer serves the control socket: warden ps, screen, attach, send,
// restart, stop, and the page's view of the team.
func (t *Team) ControlServer() *Edge { return edge("control socket", t.startControl()) }

// Dashboard prints the dashboard to stdout at most every minute once
// something changed (on a terminal: a footer redrawn every 2 s).
func (t *Team) Dashboard() *Edge { return edge("dashboard", t.printDashboard(t.dashboardEvery)) }

// Budget ends the run at max_runtime or stop_at: a team checkpoint, then
// exit. Make it when the run starts: max_runtime counts from then.
func (t *Team) Budget() *Edge { return edge("budget", t.watchBudget()) }

// Keys copies the user's keystrokes to the wrapped agent (warden wrap): it
// ends with the input, or with the run (the read it waits in is left to
// the process's exit).
func (t *Team) Keys() *Edge {
	if t.term == nil {
		return edge("keys", func() {})
	}
	go t.pumpInput()
	return edge("keys", func() {})
}
