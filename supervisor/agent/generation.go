package agent

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Generation is one life of the team between team checkpoints: the first
// starts from the team file (or from state after --resume), each one after a
// team checkpoint starts every open task in a fresh session from the handoff.
type Generation struct {
	n       int
	handoff string // the handoff its sessions start from; "" for the first

	checkpointing chan struct{} // closed: ask every session for a last checkpoint
	stopping      chan struct{} // closed: stop every session (its CLI's quit keys, then TERM)
	killing       chan struct{} // closed: kill every session's process group now
	answered      chan string   // agents that answered the team's last request
	contextFired  atomic.Bool   // a context gauge already asked for a team checkpoint
	cause         atomic.Value  // string: why the team checkpoint runs

	// starts orders what starts work — a dispatch, a session's start —
	// with the team checkpoint's beginning: each holds it shared from its
	// last look at the generation until it is done (the task taken and
	// told, the process running); AskLastCheckpoint takes it whole to
	// begin the stop. So nothing is dispatched or started once the team
	// checkpoint began, and nothing begun before is missed by it.
	starts sync.RWMutex

	mu       sync.Mutex
	askOnce  sync.Once
	stopOnce sync.Once
	killOnce sync.Once
	shutdown context.Context // shared deadline of every stop, set before stopping closes
	cancel   context.CancelFunc
}

func NewGeneration(n int, handoff string, agents int) *Generation {
	return &Generation{n: n, handoff: handoff, checkpointing: make(chan struct{}),
		stopping: make(chan struct{}), killing: make(chan struct{}), answered: make(chan string, agents)}
}

// SetCause records why the team checkpoint runs (protocol.Cause*), before
// AskLastCheckpoint: the last checkpoints carry it.
func (g *Generation) SetCause(cause string) { g.cause.Store(cause) }

// Cause is why the team checkpoint runs, "" before one.
func (g *Generation) Cause() string {
	c, _ := g.cause.Load().(string)
	return c
}

// AskLastCheckpoint is the team checkpoint's last call: every busy session
// types a last checkpoint request. From now on nothing restarts and no task
// is dispatched.
func (g *Generation) AskLastCheckpoint() {
	g.askOnce.Do(func() {
		g.starts.Lock()
		close(g.checkpointing)
		g.starts.Unlock()
	})
}

// MayStart holds the team checkpoint off while work starts (a task taken,
// a session's process started): ok is false once the team checkpoint
// began, and nothing may start; else release must be called once the
// work started or was given up (more calls do nothing).
func (g *Generation) MayStart() (release func(), ok bool) {
	g.starts.RLock()
	if g.IsStopping() {
		g.starts.RUnlock()
		return func() {}, false
	}
	var once sync.Once
	return func() { once.Do(g.starts.RUnlock) }, true
}

// Stop stops every session at once — each types its CLI's quit keys, gives
// it a moment, then TERMs its process group — on one shared deadline,
// timeout from now, which it returns (a later Stop keeps the first
// deadline). It comes before the last call when there was none (warden
// stop --now), so that no session sees the last call alone.
func (g *Generation) Stop(timeout time.Duration) context.Context {
	g.stopOnce.Do(func() {
		g.mu.Lock()
		g.shutdown, g.cancel = context.WithTimeout(context.Background(), timeout)
		g.mu.Unlock()
		close(g.stopping)
	})
	g.AskLastCheckpoint()
	return g.ShutdownCtx()
}

// Kill kills every session's process group, its descendants and escapees
// now, whatever the session is doing; a session that starts later is
// killed at once.
func (g *Generation) Kill() {
	g.killOnce.Do(func() { close(g.killing) })
}

// Force makes every stop kill at once (a second signal): the shared
// deadline is now.
func (g *Generation) Force() {
	g.Stop(time.Hour) // then cancelled: the stops see Canceled, "forced"
	g.mu.Lock()
	g.cancel()
	g.mu.Unlock()
	g.Kill()
}

// ShutdownCtx is the shared stop deadline (valid once stopping is closed).
func (g *Generation) ShutdownCtx() context.Context {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.shutdown
}

// IsStopping reports whether a team checkpoint or stop has begun.
func (g *Generation) IsStopping() bool {
	select {
	case <-g.checkpointing:
		return true
	default:
		return false
	}
}

// Release frees the shutdown context's timer.
func (g *Generation) Release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cancel != nil {
		g.cancel()
	}
}

// StopCtx is a context that ends when the generation begins to stop.
func (g *Generation) StopCtx() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-g.checkpointing:
		case <-ctx.Done():
		}
		cancel()
	}()
	return ctx, cancel
}

// LastCall is closed when the team asks every session for a last checkpoint.
func (g *Generation) LastCall() <-chan struct{} { return g.checkpointing }

// Stopping is closed when every session must stop.
func (g *Generation) Stopping() <-chan struct{} { return g.stopping }

// Killing is closed when every session's process group must be killed.
func (g *Generation) Killing() <-chan struct{} { return g.killing }

// Answered receives the names of agents that answered the last call.
func (g *Generation) Answered() <-chan string { return g.answered }

// N is the generation's number, from 1.
func (g *Generation) N() int { return g.n }

// Handoff is the handoff its sessions start from ("" for the first).
func (g *Generation) Handoff() string { return g.handoff }

// FireContext reports whether this is the first context gauge past the
// threshold in this generation (one team checkpoint a generation).
func (g *Generation) FireContext() bool { return g.contextFired.CompareAndSwap(false, true) }
