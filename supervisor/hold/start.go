package hold

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/holder"
	"github.com/wardenhq/warden/runner"
)

// Start starts cfg's program through the holder and attaches to it: the
// holder forks it under a new pty (in cfg's box) and hands the master
// over; the Process reads, writes, resizes and signals it as runner.Start's
// does, and Done closes once the holder reported its exit and its output
// was drained. On error nothing is left running.
func (h *Hold) Start(log hclog.Logger, cfg runner.Config) (*runner.Process, error) {
	if len(cfg.Argv) == 0 {
		return nil, fmt.Errorf("start %s: empty argv", cfg.Name)
	}
	req := holder.StartRequest{Argv: cfg.Argv, Env: runner.Environ(cfg.Env), Dir: cfg.Dir,
		Rows: cfg.Size.Rows, Cols: cfg.Size.Cols, Scoped: cfg.Scoped,
		Hide: cfg.Walls.Hide, ReadOnly: cfg.Walls.ReadOnly, Writable: cfg.Walls.Writable}
	if cfg.Cgroup != nil {
		req.Cgroup = cfg.Cgroup.Path()
	}
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	ad, err := h.client.StartAdopt(ctx, req)
	if err != nil {
		if ad.Agent.ID != "" {
			h.stop(ad.Agent.ID)
		}
		return nil, fmt.Errorf("start %s through the holder: %w", cfg.Name, err)
	}
	return h.attach(log, cfg, ad)
}

// attach makes a Process of an agent handed over, and routes its exit to
// it.
func (h *Hold) attach(log hclog.Logger, cfg runner.Config, ad holder.Adopted) (*runner.Process, error) {
	p, err := runner.Attach(log, cfg, ad.Agent.Pid, ad.Master, ad.Output)
	if err != nil {
		h.stop(ad.Agent.ID)
		return nil, err
	}
	h.mu.Lock()
	e, early := h.exits[ad.Agent.ID]
	delete(h.exits, ad.Agent.ID)
	gone := h.gone
	if !early && !gone {
		h.procs[ad.Agent.ID] = p
	}
	h.mu.Unlock()
	switch {
	case early:
		p.Reaped(e)
	case ad.Agent.Exit != nil:
		h.exited(ad.Agent.ID, exitOf(*ad.Agent.Exit))
	case gone:
		_ = p.Kill()
		p.Reaped(runner.Exit{Code: -1, Err: runner.ErrParentGone})
	}
	return p, nil
}

// stop has the holder end agent id (a start that failed half-way).
func (h *Hold) stop(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	if _, err := h.client.Stop(ctx, id); err != nil && !errors.Is(err, context.Canceled) {
		h.log.Warn("a half-started agent not stopped by the holder", "agent", id, "error", err)
	}
}

// Claim marks the holder's agent id as this warden's, to be taken back
// (Take) or dropped (Drop): StopLive leaves it alone.
func (h *Hold) Claim(id string) {
	h.mu.Lock()
	h.claimed[id] = true
	h.mu.Unlock()
}

// Take takes a claimed agent back: the holder hands over its master with
// what it read while no warden did, which goes to cfg.Output and the log
// first; from there the Process is one Start made. An agent that exited
// meanwhile gives its last output and its exit at once.
func (h *Hold) Take(log hclog.Logger, cfg runner.Config, id string) (*runner.Process, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	ads, err := h.client.Adopt(ctx, id)
	if err == nil && len(ads) != 1 {
		err = fmt.Errorf("%d agents handed over, not 1", len(ads))
	}
	if err != nil {
		for _, ad := range ads {
			if ad.Master != nil {
				_ = ad.Master.Close()
			}
		}
		h.stop(id)
		return nil, fmt.Errorf("take %s back from the holder: %w", cfg.Name, err)
	}
	ad := ads[0]
	if ad.Dropped > 0 {
		log.Warn("the holder dropped output while no warden read it", "bytes", ad.Dropped)
	}
	log.Info("taken back from the holder", "pid", ad.Agent.Pid, "buffered", len(ad.Output), "exited", ad.Agent.Exit != nil)
	p, err := h.attach(log, cfg, ad)
	if err == nil && ad.Master != nil {
		redraw(log, p, cfg.Size)
	}
	return p, err
}

// redraw has a TUI taken back draw its whole screen again for the new
// warden's emulator, which starts from what the holder kept, not from a
// screen: the window is made a column narrower, then its size again (two
// SIGWINCHes; the real TUIs redraw on a resize), put back redrawPause
// later, off the take-back's path. It also sets the size the new warden
// reads at.
func redraw(log hclog.Logger, p *runner.Process, size runner.Size) {
	if size.Rows == 0 {
		size.Rows = runner.DefaultRows
	}
	if size.Cols == 0 {
		size.Cols = runner.DefaultCols
	}
	narrower := runner.Size{Rows: size.Rows, Cols: size.Cols - 1}
	if err := p.Resize(narrower); err != nil {
		log.Warn("a TUI taken back not asked to redraw", "error", err)
		return
	}
	time.AfterFunc(redrawPause, func() {
		if err := p.Resize(size); err != nil {
			log.Warn("a TUI taken back not put back to its size", "error", err)
		}
	})
}

// redrawPause is between redraw's two sizes: a TUI may read the size some
// time after the signal. OpenCode does: with 50 ms it found its size
// unchanged, drew only what had changed, and the new warden's screen had
// no input box and letters missing — no turn boundary, no request typed
// again (BenchmarkRealCLITakeBack's round 2 never came); with 500 ms it
// draws everything.
const redrawPause = 500 * time.Millisecond

// Drop ends a claimed agent that is not taken back.
func (h *Hold) Drop(id string) { h.stop(id) }
