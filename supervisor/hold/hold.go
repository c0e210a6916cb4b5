// Package hold is the team's side of its holder (internal/holder, run as
// `warden hold`): with holder = true, `warden run` finds the team's holder
// on its socket or starts one, and every session starts its agent through
// it (Start, a session.Starter): the holder is the agent's parent and
// keeps its pty; warden reads and writes the master it was handed as it
// does a runner pty (runner.Attach), signals the agent's process group
// itself, and learns its exit from the holder. End stops the holder with
// the run. docs/design-holder.md.
package hold

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/holder"
	"github.com/wardenhq/warden/runner"
)

// Options say where the holder is and how to start one.
type Options struct {
	Socket        string        // its unix socket (in the state dir: 0700)
	Bin           string        // warden's executable, run as `warden hold`
	LogPath       string        // the holder's log (0600, appended)
	OrphanTimeout time.Duration // the holder's orphan_timeout
	Dir           string        // the holder's working directory ("": ours)
}

// requestTimeout bounds one request to the holder.
const requestTimeout = 30 * time.Second

// Hold is a connection to the team's holder and the processes it started
// for this warden.
type Hold struct {
	log     hclog.Logger
	client  *holder.Client
	spawned *spawned // nil: found, started by an earlier warden

	mu      sync.Mutex
	procs   map[string]*runner.Process // by the holder's agent id, until they exit
	exits   map[string]runner.Exit     // exits that came before their process was attached
	claimed map[string]bool            // an earlier warden's, to be taken back (takeback.go)
	gone    bool                       // the connection ended
	closing bool                       // Close: the agents are left to the holder
	ended   chan struct{}              // closed once the events are all read
}

// Open connects to the holder on o.Socket, or starts one there and
// connects. Found says whether it was there already (an earlier warden's:
// it may hold agents, see Agents).
func Open(log hclog.Logger, o Options) (h *Hold, found bool, err error) {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	log = log.Named("hold")
	c, err := holder.Dial(log, o.Socket)
	var sp *spawned
	if err != nil {
		if sp, err = spawn(log, o); err != nil {
			return nil, false, err
		}
		if c, err = dialUntil(log, o.Socket, sp, 10*time.Second); err != nil {
			sp.end(5 * time.Second)
			return nil, false, err
		}
	}
	h = &Hold{log: log, client: c, spawned: sp, procs: map[string]*runner.Process{},
		exits: map[string]runner.Exit{}, claimed: map[string]bool{}, ended: make(chan struct{})}
	go h.route()
	log.Info("holder connected", "pid", c.HolderPid(), "socket", o.Socket, "found", sp == nil)
	return h, sp == nil, nil
}

// Pid is the holder's pid.
func (h *Hold) Pid() int { return h.client.HolderPid() }

// Agents lists every agent the holder holds, live and exited.
func (h *Hold) Agents() ([]holder.AgentInfo, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	return h.client.List(ctx)
}

// StopLive stops every live agent the holder holds that this warden did
// not start (an earlier warden's, not taken back) and returns their pids.
func (h *Hold) StopLive() ([]int, error) {
	agents, err := h.Agents()
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, a := range agents {
		h.mu.Lock()
		_, ours := h.procs[a.ID]
		ours = ours || h.claimed[a.ID]
		h.mu.Unlock()
		if a.Exit != nil || ours {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		_, err := h.client.Stop(ctx, a.ID)
		cancel()
		if err != nil {
			return pids, fmt.Errorf("stop held agent %s (pid %d): %w", a.ID, a.Pid, err)
		}
		pids = append(pids, a.Pid)
	}
	return pids, nil
}

// route hands each exit the holder reports to its process; once the
// connection ends, the processes left get ErrParentGone and are killed: a
// pty warden holds keeps its agent alive, with nobody left to tell its end.
func (h *Hold) route() {
	defer close(h.ended)
	for ev := range h.client.Events() {
		if ev.Kind == holder.EventExited && ev.Agent.Exit != nil {
			h.exited(ev.Agent.ID, exitOf(*ev.Agent.Exit))
		}
	}
	h.mu.Lock()
	h.gone = true
	left := h.procs
	h.procs = map[string]*runner.Process{}
	if h.closing {
		left = nil // left to the holder, as a warden that died leaves them
	}
	h.mu.Unlock()
	for id, p := range left {
		h.log.Error("the holder is gone: its agent's end cannot be told", "agent", id, "pid", p.Pid())
		_ = p.Kill()
		p.Reaped(runner.Exit{Code: -1, Err: runner.ErrParentGone})
	}
}

// exited tells the process of agent id how it ended (or keeps it for the
// process about to be attached).
func (h *Hold) exited(id string, e runner.Exit) {
	h.mu.Lock()
	p := h.procs[id]
	delete(h.procs, id)
	if p == nil {
		h.exits[id] = e
	}
	h.mu.Unlock()
	if p != nil {
		p.Reaped(e)
	}
}

func exitOf(e holder.ExitStatus) runner.Exit {
	if e.Signal != 0 {
		return runner.Exit{Code: -1, Signal: syscall.Signal(e.Signal)}
	}
	return runner.Exit{Code: e.Code}
}

// End ends the holder with the run: SIGTERM (it stops what it still
// holds, then exits), a wait of up to timeout, then the connection is
// closed. An agent warden did not stop is stopped by the holder.
func (h *Hold) End(timeout time.Duration) error {
	pid := h.Pid()
	var err error
	if pid > 0 {
		if kerr := syscall.Kill(pid, syscall.SIGTERM); kerr != nil && !errors.Is(kerr, syscall.ESRCH) {
			err = fmt.Errorf("end holder %d: %w", pid, kerr)
		}
	}
	gone := h.spawned.wait(timeout, pid)
	_ = h.client.Close()
	<-h.ended
	if !gone && err == nil {
		err = fmt.Errorf("end holder %d: still running after %s", pid, timeout)
	}
	return err
}

// Close closes the connection, leaving the holder and its agents running
// (the holder drains them again) as a warden that dies does: the
// processes attached stay as they are (their Done does not close).
func (h *Hold) Close() error {
	h.mu.Lock()
	h.closing = true
	h.mu.Unlock()
	err := h.client.Close()
	<-h.ended
	return err
}
