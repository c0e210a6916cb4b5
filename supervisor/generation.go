package supervisor

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// generation is one life of the team between team checkpoints: the first
// starts from the team file (or from state after --resume), each one after a
// team checkpoint starts every open task in a fresh session from the handoff.
type generation struct {
	n       int
	handoff string // the handoff its sessions start from; "" for the first

	checkpointing chan struct{} // closed: ask every session for a last checkpoint
	stopping      chan struct{} // closed: stop every session
	answered      chan string   // agents that answered the team's last request
	contextFired  atomic.Bool   // a context gauge already asked for a team checkpoint

	mu       sync.Mutex
	askOnce  sync.Once
	stopOnce sync.Once
	shutdown context.Context // shared deadline of every stop, set before stopping closes
	cancel   context.CancelFunc
}

func newGeneration(n int, handoff string, agents int) *generation {
	return &generation{n: n, handoff: handoff, checkpointing: make(chan struct{}),
		stopping: make(chan struct{}), answered: make(chan string, agents)}
}

// askLastCheckpoint starts a team checkpoint's first phase. From now on
// nothing restarts and no task is dispatched.
func (g *generation) askLastCheckpoint() {
	g.askOnce.Do(func() { close(g.checkpointing) })
}

// stop starts the second phase: every session stops, TERM at once, KILL at
// the shared deadline timeout from now.
func (g *generation) stop(timeout time.Duration) {
	g.askLastCheckpoint()
	g.stopOnce.Do(func() {
		g.mu.Lock()
		g.shutdown, g.cancel = context.WithTimeout(context.Background(), timeout)
		g.mu.Unlock()
		close(g.stopping)
	})
}

// force makes every stop kill at once.
func (g *generation) force() {
	g.stop(time.Hour) // then cancelled: the stops see Canceled, "forced"
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cancel()
}

// shutdownCtx is the shared stop deadline (valid once stopping is closed).
func (g *generation) shutdownCtx() context.Context {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.shutdown
}

// isStopping reports whether a team checkpoint or stop has begun.
func (g *generation) isStopping() bool {
	select {
	case <-g.checkpointing:
		return true
	default:
		return false
	}
}

// release frees the shutdown context's timer.
func (g *generation) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cancel != nil {
		g.cancel()
	}
}

// stopCtx is a context that ends when the generation begins to stop.
func (g *generation) stopCtx() (context.Context, context.CancelFunc) {
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
