package holder

import (
	"net"
	"os"
	"time"

	"github.com/wardenhq/warden/internal/unixsock"
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
