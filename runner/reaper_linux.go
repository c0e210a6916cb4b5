package runner

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"
)

// reaper is the one process-wide collector of exit statuses. On every
// SIGCHLD (and when kicked) it calls wait4(pid, WNOHANG) for each registered
// leader and each adopted pid. It never calls wait4(-1), which would steal
// statuses from os/exec users in the same process.
type reaper struct {
	logger  hclog.Logger
	self    int
	selfSid int

	mu       sync.Mutex
	agents   map[int]*Process // leader pid → process, until reaped
	sessions map[int]*Process // agent sid (== pid) → process, until forgotten
	adopted  map[int]*Process // other pids known to belong to an agent, until reaped
	changed  chan struct{}    // closed and replaced after a pass that reaped something

	kick chan struct{}
}

var (
	reaperOnce sync.Once
	theReaper  *reaper
)

// getReaper starts the reaper on first use.
func getReaper(logger hclog.Logger) *reaper {
	reaperOnce.Do(func() {
		sid, err := unix.Getsid(0)
		if err != nil {
			sid = -1
		}
		r := &reaper{
			logger:   logger.ResetNamed("runner").Named("reaper"),
			self:     os.Getpid(),
			selfSid:  sid,
			agents:   map[int]*Process{},
			sessions: map[int]*Process{},
			adopted:  map[int]*Process{},
			changed:  make(chan struct{}),
			kick:     make(chan struct{}, 1),
		}
		if err := setSubreaper(); err != nil {
			r.logger.Warn("cannot become child subreaper; orphans go to init", "error", err)
		}
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGCHLD)
		go r.loop(sigs)
		theReaper = r
	})
	return theReaper
}

// reaperChanged returns a channel closed after the next reaper pass that
// reaps anything.
func reaperChanged() <-chan struct{} { return theReaper.changedCh() }

// startRegistered runs fork (which starts the process and returns its pid),
// then registers the pid. Starts run in parallel: the registry is locked for
// the registration only, never across fork. No exit is missed: until it is
// registered nothing waits for the child (the reaper waits for registered
// pids only, and its orphan scan never takes a pid that leads a session, see
// reapOrphans), so an exit before the registration is collected by the check
// right after it, and one after it by the SIGCHLD pass that follows the exit.
func startRegistered(logger hclog.Logger, p *Process, fork func() (int, error)) error {
	r := getReaper(logger)
	pid, err := fork()
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	p.pid = pid
	p.start = procStart(pid) // before any reap: the pid is still ours
	r.agents[pid] = p
	r.sessions[pid] = p
	// This pid only: the other pids have their own SIGCHLD, so this start
	// costs O(1), not O(agents).
	if ws, ok, err := Wait4NoHang(pid); ok || err != nil {
		delete(r.agents, pid)
		p.leaderReaped(ws, err)
	}
	return nil
}

func (r *reaper) poke() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

func (r *reaper) loop(sigs <-chan os.Signal) {
	for {
		select {
		case <-sigs:
		case <-r.kick:
		}
		r.pass()
	}
}

// changedCh returns a channel closed after the next pass that reaps anything.
func (r *reaper) changedCh() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

func (r *reaper) pass() {
	r.mu.Lock()
	defer r.mu.Unlock()
	reaped := false
	for pid, p := range r.agents {
		ws, ok, err := Wait4NoHang(pid)
		if !ok && err == nil {
			continue
		}
		delete(r.agents, pid)
		if err != nil {
			err = fmt.Errorf("wait for %s (pid %d): %w", p.name, pid, err)
			r.logger.Error("wait failed", "agent", p.name, "pid", pid, "error", err)
		}
		p.leaderReaped(ws, err)
		reaped = true
	}
	for pid := range r.adopted {
		if _, ok, err := Wait4NoHang(pid); ok || err != nil {
			delete(r.adopted, pid)
			reaped = reaped || ok
		}
	}
	if len(r.sessions) > 0 && zombieChildWaiting() {
		reaped = r.reapOrphans() || reaped
	}
	if reaped {
		close(r.changed)
		r.changed = make(chan struct{})
	}
}

// reapOrphans scans /proc for children of ours that belong to an agent:
// zombies in an agent's session or group are reaped; live escapees carrying
// an agent's tag are remembered as adopted so that they are reaped later.
func (r *reaper) reapOrphans() bool {
	procs, err := readProcs()
	if err != nil {
		r.logger.Warn("scan processes failed", "error", err)
		return false
	}
	reaped := false
	for _, pi := range procs {
		if pi.ppid != r.self || r.agents[pi.pid] != nil {
			continue
		}
		owner := r.sessions[pi.sid]
		if owner == nil {
			owner = r.sessions[pi.pgid]
		}
		if owner == nil && !pi.zombie() && pi.sid != r.selfSid {
			for _, p := range r.sessions {
				if hasEnvEntry(pi.pid, RunnerTagEnv+"="+p.tag) {
					r.adopted[pi.pid] = p
					break
				}
			}
			continue
		}
		if owner != nil && owner.pid == pi.pid {
			// An agent's leader is reaped as an agent, never as an orphan:
			// this is a new child reusing the pid of a session not yet
			// forgotten, maybe one still being registered.
			continue
		}
		if owner != nil && pi.zombie() {
			if _, ok, _ := Wait4NoHang(pi.pid); ok {
				r.logger.Debug("reaped orphan", "agent", owner.name, "pid", pi.pid)
				reaped = true
			}
		}
	}
	return reaped
}

// adopt remembers pids found by a sweep that are now our children.
func (r *reaper) adopt(p *Process, pids []int) {
	r.mu.Lock()
	for _, pid := range pids {
		if r.agents[pid] == nil {
			r.adopted[pid] = p
		}
	}
	r.mu.Unlock()
	r.poke()
}

// theReaperForget drops p's session from the reaper.
func theReaperForget(p *Process) { theReaper.forget(p) }

// forget drops p's session once nothing of it is left.
func (r *reaper) forget(p *Process) {
	r.mu.Lock()
	if r.sessions[p.pid] == p && r.agents[p.pid] == nil {
		delete(r.sessions, p.pid)
	}
	r.mu.Unlock()
}

// Wait4NoHang collects pid's status if it has exited. ok is false if it is
// still running; err is ECHILD if it is not (or no longer) our child.
func Wait4NoHang(pid int) (syscall.WaitStatus, bool, error) {
	var ws syscall.WaitStatus
	for {
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return 0, false, err
		}
		return ws, got == pid, nil
	}
}
