package holder

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/wardenhq/warden/internal/unixsock"
)

// eventQueue bounds the events waiting for a client: one that reads none
// of that many is dropped (a client that comes back lists what it missed).
const eventQueue = 256

// conn is one client's connection: its requests are served in order, one
// at a time; events are written by a goroutine of their own between
// messages.
type conn struct {
	h    *Holder
	lc   *lineConn
	peer unixsock.Peer

	released chan struct{} // closed once the holder drains its masters again

	mu     sync.Mutex
	events chan Message
	gone   bool
	once   sync.Once
}

func newConn(h *Holder, uc *net.UnixConn) *conn {
	return &conn{
		h:        h,
		lc:       newLineConn(uc, maxRequest, writeTimeout),
		peer:     unixsock.PeerOf(uc),
		events:   make(chan Message, eventQueue),
		released: make(chan struct{}),
	}
}

// serve says hello, then answers requests until the client goes.
func (c *conn) serve() {
	defer c.h.dropConn(c)
	defer c.close()
	c.h.log.Info("client connected", "pid", c.peer.Pid)
	go c.writeEvents()
	if err := c.lc.writeJSON(Message{Kind: KindHello, Version: ProtocolVersion, Pid: c.h.self}, -1); err != nil {
		return
	}
	for {
		line, err := c.lc.readLine()
		c.lc.closeFDs() // a client sends none; any it sent are closed unread
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.h.log.Warn("client dropped", "pid", c.peer.Pid, "error", err)
			}
			return
		}
		var req Request
		if err := json.Unmarshal(line, &req); err != nil {
			c.h.log.Warn("client dropped: a request that does not parse", "pid", c.peer.Pid, "error", err)
			return
		}
		reply := c.handle(req)
		reply.Kind, reply.Seq = KindReply, req.Seq
		if err := c.lc.writeJSON(reply, -1); err != nil {
			c.h.log.Warn("client dropped: reply not sent", "pid", c.peer.Pid, "error", err)
			return
		}
	}
}

// handle serves one request and returns its reply (Kind and Seq unset).
func (c *conn) handle(req Request) Message {
	fail := func(err error) Message { return Message{Error: fmt.Sprintf("%s: %v", req.Op, err)} }
	switch req.Op {
	case OpStart:
		if req.Start == nil {
			return fail(errors.New("no start"))
		}
		a, err := c.h.start(*req.Start)
		if err != nil {
			return fail(err)
		}
		if req.Start.Adopt {
			if _, err := c.adopt(Request{Seq: req.Seq, IDs: []string{a.id}}); err != nil {
				c.h.terminate(a, 0)
				return fail(err)
			}
		}
		in := a.info()
		return Message{Agent: &in}
	case OpList:
		return Message{Agents: c.h.list()}
	case OpStop:
		a, err := c.h.agent(req.ID)
		if err != nil {
			return fail(err)
		}
		c.h.terminate(a, c.h.StopTimeout)
		in := a.info()
		return Message{Agent: &in}
	case OpAdopt:
		agents, err := c.adopt(req)
		if err != nil {
			return fail(err)
		}
		return Message{Agents: agents}
	default:
		return fail(errors.New("unknown operation"))
	}
}

// list is every agent, in start order.
func (h *Holder) list() []AgentInfo {
	h.mu.Lock()
	agents := append([]*agent(nil), h.agents...)
	h.mu.Unlock()
	out := make([]AgentInfo, 0, len(agents))
	for _, a := range agents {
		out = append(out, a.info())
	}
	return out
}

// event queues m for the client, or drops the client when its queue is
// full. The holder's lock is held.
func (c *conn) event(m Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone {
		return
	}
	select {
	case c.events <- m:
	default:
		c.h.log.Warn("client dropped: it reads no events", "pid", c.peer.Pid)
		c.gone = true
		close(c.events)
		c.once.Do(func() { _ = c.lc.c.Close() })
	}
}

func (c *conn) writeEvents() {
	for m := range c.events {
		if err := c.lc.writeJSON(m, -1); err != nil {
			c.close()
			for range c.events { // until close closes it
			}
			return
		}
	}
}

// close ends the connection (its serve then returns and drops it).
func (c *conn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.gone {
		c.gone = true
		close(c.events)
	}
	c.once.Do(func() { _ = c.lc.c.Close() })
}
