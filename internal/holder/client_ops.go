package holder

import (
	"context"
	"fmt"
	"os"
	"strconv"
)

// Start starts a process under a new pty in the holder. Its output goes
// to the holder's ring until a client adopts it.
func (c *Client) Start(ctx context.Context, req StartRequest) (AgentInfo, error) {
	msgs, err := c.call(ctx, Request{Op: OpStart, Start: &req})
	if err != nil {
		return AgentInfo{}, err
	}
	return *msgs[len(msgs)-1].Agent, nil
}

// StartAdopt starts a process under a new pty in the holder and takes its
// master in the same request (StartRequest.Adopt): no other request comes
// between, so the holder's ring holds at most what the agent wrote while
// the handover was sent. A holder from before that field hands nothing
// over with the start: the master is adopted then. On error the returned
// Adopted carries the agent's id when it was started (the caller stops it).
func (c *Client) StartAdopt(ctx context.Context, req StartRequest) (Adopted, error) {
	req.Adopt = true
	msgs, err := c.call(ctx, Request{Op: OpStart, Start: &req})
	ads := c.adopted(msgs)
	if err != nil {
		for _, ad := range ads {
			c.forget(ad.Master)
		}
		return Adopted{}, err
	}
	info := *msgs[len(msgs)-1].Agent
	if len(ads) == 0 { // a holder older than StartRequest.Adopt
		ads, err = c.Adopt(ctx, info.ID)
	}
	if err == nil && len(ads) != 1 {
		err = fmt.Errorf("%d agents handed over, not 1", len(ads))
	}
	if err != nil {
		for _, ad := range ads {
			c.forget(ad.Master)
		}
		return Adopted{Agent: info}, err
	}
	return ads[0], nil
}

// List returns every agent the holder started, live and exited (with
// their exit status), in start order.
func (c *Client) List(ctx context.Context) ([]AgentInfo, error) {
	msgs, err := c.call(ctx, Request{Op: OpList})
	if err != nil {
		return nil, err
	}
	return msgs[len(msgs)-1].Agents, nil
}

// Stop ends an agent (SIGTERM to its group, SIGKILL after the holder's
// StopTimeout) and returns it with its exit status.
func (c *Client) Stop(ctx context.Context, id string) (AgentInfo, error) {
	msgs, err := c.call(ctx, Request{Op: OpStop, ID: id})
	if err != nil {
		return AgentInfo{}, err
	}
	return *msgs[len(msgs)-1].Agent, nil
}

// Adopt takes the masters of ids (none: every agent no other client
// holds). From the reply on this client reads them; the holder reads them
// again only once this connection ends. The masters are non-blocking
// (pollable: deadlines work); never call their Fd method, which makes the
// open file description — the holder's too — blocking.
func (c *Client) Adopt(ctx context.Context, ids ...string) ([]Adopted, error) {
	msgs, err := c.call(ctx, Request{Op: OpAdopt, IDs: ids})
	return c.adopted(msgs), err
}

// adopted makes an Adopted of every "adopted" message in msgs; Close
// closes their masters.
func (c *Client) adopted(msgs []incoming) []Adopted {
	var out []Adopted
	for _, m := range msgs {
		if m.Kind != KindAdopted || m.Agent == nil {
			continue
		}
		ad := Adopted{Agent: *m.Agent, Output: m.Output, Dropped: m.Dropped}
		if m.fd >= 0 {
			ad.Master = os.NewFile(uintptr(m.fd), "pty master of "+m.Agent.ID+" (pid "+strconv.Itoa(m.Agent.Pid)+")")
			c.mu.Lock()
			c.masters = append(c.masters, ad.Master)
			c.mu.Unlock()
		}
		out = append(out, ad)
	}
	return out
}

// forget closes a master handed over that nobody will read, and drops it
// from those Close closes.
func (c *Client) forget(f *os.File) {
	if f == nil {
		return
	}
	c.mu.Lock()
	for i, m := range c.masters {
		if m == f {
			c.masters = append(c.masters[:i], c.masters[i+1:]...)
			break
		}
	}
	c.mu.Unlock()
	_ = f.Close()
}

// Close closes the masters this client adopted, then the connection: the
// holder drains them again. Close the masters first, so that nothing of
// this process reads them once the holder does.
func (c *Client) Close() error {
	c.mu.Lock()
	masters := c.masters
	c.masters = nil
	c.mu.Unlock()
	for _, f := range masters {
		_ = f.Close()
	}
	err := c.lc.c.Close()
	<-c.done
	return err
}
