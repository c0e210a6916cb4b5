package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// pauser parks a Process's reader between two reads (Pause): the master
// stays open and nothing more is read from it, so what the agent writes
// meanwhile stays in the terminal for whoever reads next — the holder,
// once this warden's connection ends (`warden upgrade`).
type pauser struct {
	mu     sync.Mutex
	want   bool
	parked chan struct{} // closed by the reader once it is parked
	resume chan struct{} // closed by Resume
}

// Pause stops the reader between two reads and returns once it is parked
// (every byte it read is handed to Output), or once the process is done.
// The master stays open: Resume lets the reader go on.
func (p *Process) Pause(ctx context.Context) error {
	p.pause.mu.Lock()
	if !p.pause.want {
		p.pause.want = true
		p.pause.parked = make(chan struct{})
		p.pause.resume = make(chan struct{})
	}
	parked := p.pause.parked
	p.pause.mu.Unlock()
	// A deadline in the past ends the reader's wait in the netpoller, or
	// its next read before it reads (the deadline is checked first).
	if p.ptmx != nil {
		if err := p.ptmx.SetReadDeadline(time.Unix(1, 0)); err != nil && !errors.Is(err, os.ErrClosed) {
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
