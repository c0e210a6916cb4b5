package holder

import (
	"context"
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
	return out, err
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
