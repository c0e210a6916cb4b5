package holder

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// adopt hands the masters of req.IDs (none: every agent no client holds)
// to the client: for each, the drain is paused first, so that every byte
// the holder read is in the ring, then the ring is emptied into one
// "adopted" message with a duplicate of the master beside it. From then
// on the client reads the master; the holder reads it again once this
// connection ends (dropConn); a master another connection holds is waited
// for up to the holder's AdoptWait, then refused. An agent that exited and whose master the
// holder closed gives its last output and no master.
func (c *conn) adopt(req Request) ([]AgentInfo, error) {
	var agents []*agent
	if len(req.IDs) == 0 {
		c.h.mu.Lock()
		agents = append(agents, c.h.agents...)
		c.h.mu.Unlock()
	} else {
		for _, id := range req.IDs {
			a, err := c.h.agent(id)
			if err != nil {
				return nil, err
			}
			agents = append(agents, a)
		}
	}
	var out []AgentInfo
	for _, a := range agents {
		a.mu.Lock()
		if held := a.adoptedBy; held != nil && held != c {
			// A warden that died a moment ago: its end may be read after
			// the next warden's adopt.
			a.mu.Unlock()
			select {
			case <-held.released:
			case <-time.After(c.h.AdoptWait):
			}
			a.mu.Lock()
		}
		if held := a.adoptedBy; held != nil {
			a.mu.Unlock()
			if len(req.IDs) == 0 {
				continue // held by a client already
			}
			if held == c {
				return out, fmt.Errorf("agent %s: this connection holds its master already", a.id)
			}
			return out, fmt.Errorf("agent %s: its master is held by another client (pid %d)", a.id, held.peer.Pid)
		}
		fd := -1
		if a.fd >= 0 && !a.closing {
			a.pauseLocked() // may wait: the drain may end the output meanwhile
			var err error
			if a.fd >= 0 && !a.closing {
				fd, err = a.dupLocked()
			}
			if err != nil {
				a.resumeLocked()
				a.mu.Unlock()
				return out, fmt.Errorf("agent %s: %w", a.id, err)
			}
			if fd >= 0 {
				a.adoptedBy = c
			} else {
				a.resumeLocked()
			}
		}
		output, dropped := a.ring.take()
		in := a.infoLocked()
		a.mu.Unlock()
		err := c.lc.writeJSON(Message{Kind: KindAdopted, Seq: req.Seq, Agent: &in, Output: output,
			Dropped: dropped, FD: fd >= 0}, fd)
		if fd >= 0 {
			_ = unix.Close(fd)
		}
		if err != nil {
			return out, fmt.Errorf("agent %s: %w", a.id, err)
		}
		a.log.Info("master handed to a client", "pid", c.peer.Pid, "buffered", len(output), "dropped", dropped, "fd", fd >= 0)
		out = append(out, in)
	}
	return out, nil
}
