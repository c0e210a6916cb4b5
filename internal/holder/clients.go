package holder

import (
	"fmt"
	"net"
	"os"
	"time"

	"github.com/wardenhq/warden/internal/unixsock"
	"github.com/wardenhq/warden/runner"
)

// accept serves each connection of our own user until the listener closes.
func (h *Holder) accept(ln *net.UnixListener) {
	for {
		uc, err := ln.AcceptUnix()
		if err != nil {
			if unixsock.Dead(err) {
				return
			}
			h.log.Warn("accept failed", "error", err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if p := unixsock.PeerOf(uc); !p.Known || p.Uid != os.Getuid() {
			h.refusals.Warn(h.log, "refused a client of another user", "pid", p.Pid, "uid", p.Uid)
			_ = uc.Close()
			continue
		}
		if err := h.admit(unixsock.PeerOf(uc).Pid); err != nil {
			h.refusals.Warn(h.log, "refused a client: the socket serves warden, not its agents", "error", err)
			_ = uc.Close()
			continue
		}
		c := newConn(h, uc)
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			_ = uc.Close()
			continue
		}
		h.conns[c] = true
		h.orphanGo++
		h.mu.Unlock()
		h.connWG.Add(1)
		go func() { defer h.connWG.Done(); c.serve() }()
	}
}

// armOrphanTimerLocked starts the orphan clock; a connection made before
// it fires makes it void. h.mu is held.
func (h *Holder) armOrphanTimerLocked() {
	h.orphanGo++
	gen := h.orphanGo
	time.AfterFunc(h.OrphanTimeout, func() {
		h.mu.Lock()
		fire := h.orphanGo == gen && len(h.conns) == 0
		h.mu.Unlock()
		if fire {
			h.orphanCl.Do(func() { close(h.orphaned) })
		}
	})
}

// dropConn forgets a connection that ended: the drain takes the masters
// it held again, and with no connection left the orphan clock starts.
func (h *Holder) dropConn(c *conn) {
	h.mu.Lock()
	delete(h.conns, c)
	agents := append([]*agent(nil), h.agents...)
	if len(h.conns) == 0 && !h.closed {
		h.armOrphanTimerLocked()
	}
	h.mu.Unlock()
	resumed := 0
	for _, a := range agents {
		a.mu.Lock()
		if a.adoptedBy == c {
			a.adoptedBy = nil
			a.resumeLocked()
			resumed++
		}
		a.mu.Unlock()
	}
	close(c.released)
	h.log.Info("client gone", "pid", c.peer.Pid, "masters_drained_again", resumed)
}

// broadcast queues m to every connected client.
func (h *Holder) broadcast(m Message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.conns {
		c.event(m)
	}
}

// admit refuses a client of our own user that is one of the holder's
// agents or what they started: in an agent's session or process group, a
// descendant of the holder outside the holder's own session (an agent's
// tree, an escapee it reparented: agents start in sessions of their own,
// and no process joins a session from outside), or
// carrying a runner tag of the holder's (that only ever refuses: any
// process of the user can copy it). An agent that could adopt another's
// master, stop it or start a process outside its box would escape it; the
// socket serves warden alone. A peer /proc says nothing of is refused too.
func (h *Holder) admit(pid int) error {
	chain := runner.Ancestry(pid)
	if len(chain) == 0 {
		return fmt.Errorf("pid %d cannot be told apart from an agent's", pid)
	}
	h.rmu.Lock()
	_, inSid := h.sessions[chain[0].Sid]
	_, inPgid := h.sessions[chain[0].Pgid]
	h.rmu.Unlock()
	if inSid || inPgid {
		return fmt.Errorf("pid %d is in an agent's session", pid)
	}
	self, _ := runner.Stat(h.self)
	for _, p := range chain[1:] {
		if p.Pid == h.self && chain[0].Sid != self.Sid {
			return fmt.Errorf("pid %d descends from the holder", pid)
		}
	}
	if runner.CarriesTagOf(pid, h.self) {
		return fmt.Errorf("pid %d carries an agent's runner tag", pid)
	}
	return nil
}
