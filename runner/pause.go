package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// pauser parks a Process's reader between two reads (Pause): the master
// stays open and nothing more is read from it, so what the agent writes
// meanwhile stays in the terminal for whoever reads next — the holder,
// once this warden's connection ends (`warden upgrade`).
type pauser struct {
	mu     sync.Mutex
	on     atomic.Bool // want, for the reader's fast path
	want   bool
	until  time.Time     // the reader parks by then, quiet or not
	parked chan struct{} // closed by the reader once it is parked
	resume chan struct{} // closed by Resume
}

const (
	// pauseQuiet: a paused reader parks once no output came for this long,
	// so that what the agent wrote in one go (a checkpoint block in several
	// reads) is read whole, not cut between this reader and the next.
	pauseQuiet = 25 * time.Millisecond
	// pauseMax: it parks this long after Pause at the latest (an agent that
	// never pauses its output).
	pauseMax = 500 * time.Millisecond
)

// Pause stops the reader between two reads, once the agent's output has
// been quiet for pauseQuiet (pauseMax at the latest), and returns once it
// is parked (every byte it read is handed to Output), or once the process
// is done. The master stays open: Resume lets the reader go on.
func (p *Process) Pause(ctx context.Context) error {
	p.pause.mu.Lock()
	if !p.pause.want {
		p.pause.want = true
		p.pause.on.Store(true)
		p.pause.until = time.Now().Add(pauseMax)
		p.pause.parked = make(chan struct{})
		p.pause.resume = make(chan struct{})
	}
	parked := p.pause.parked
	p.pause.mu.Unlock()
	// The deadline ends the reader's wait in the netpoller, or its next
	// read before it reads (the deadline is checked first); the reader
	// moves it on after each read while output comes (pauseDeadline).
	if p.ptmx != nil {
		if err := p.ptmx.SetReadDeadline(time.Now().Add(pauseQuiet)); err != nil && !errors.Is(err, os.ErrClosed) {
			return fmt.Errorf("pause reader of %s: %w", p.name, err)
		}
	}
	select {
	case <-parked:
		return nil
	case <-p.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("pause reader of %s (pid %d): %w", p.name, p.pid, ctx.Err())
	}
}

// Resume lets a paused reader read again.
func (p *Process) Resume() {
	p.pause.mu.Lock()
	defer p.pause.mu.Unlock()
	if !p.pause.want {
		return
	}
	p.pause.want = false
	p.pause.on.Store(false)
	close(p.pause.resume)
}

// parkIfPaused parks the reader while a Pause holds it; it reports whether
// it did (then the reader reads on), or false: the deadline was the drain's.
func (p *Process) parkIfPaused() bool {
	p.pause.mu.Lock()
	if !p.pause.want {
		p.pause.mu.Unlock()
		return false
	}
	parked, resume := p.pause.parked, p.pause.resume
	p.pause.mu.Unlock()
	select {
	case <-parked:
	default:
		close(parked)
	}
	<-resume
	var d time.Time // no deadline, or the drain's when the leader was reaped meanwhile
	if end := p.drainEnd.Load(); end != 0 {
		d = time.Now().Add(drainQuiet)
	}
	_ = p.ptmx.SetReadDeadline(d)
	return true
}

// pauseDeadline moves a paused reader's deadline on after a read: it parks
// once the output is quiet, or at the pause's latest.
func (p *Process) pauseDeadline() {
	if !p.pause.on.Load() {
		return
	}
	p.pause.mu.Lock()
	want, until := p.pause.want, p.pause.until
	p.pause.mu.Unlock()
	if !want {
		return
	}
	d := time.Now().Add(pauseQuiet)
	if until.Before(d) {
		d = until
	}
	_ = p.ptmx.SetReadDeadline(d)
}
