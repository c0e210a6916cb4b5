package holder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/sys/unix"

	"github.com/wardenhq/warden/internal/unixsock"
)

// maxReply bounds a line from the holder: an adopted message carries up to
// a ring of output, base64 in JSON.
const maxReply = 64 << 20

// Client is warden's side of a holder's socket. Its requests are served
// one at a time; Events delivers what the holder reports meanwhile.
type Client struct {
	log       hclog.Logger
	lc        *lineConn
	holderPid int

	reqMu   sync.Mutex // one request at a time
	mu      sync.Mutex
	seq     uint64
	waiting bool          // a request (seq) waits for its messages
	pending []incoming    // its messages not yet taken
	notify  chan struct{} // a message was added to pending
	err     error         // why the connection ended
	done    chan struct{}
	masters []*os.File // adopted, closed by Close

	events chan Event
}

// incoming is a message with the descriptor that came beside it (-1: none).
type incoming struct {
	Message
	fd int
}

// Adopted is one agent handed over by Adopt: its master (nil for an agent
// whose output has ended), what the holder read from it since the last
// adoption, and how many older bytes the holder's ring dropped. The
// caller reads and writes Master and closes it; Client.Close closes the
// masters too.
type Adopted struct {
	Agent   AgentInfo
	Master  *os.File
	Output  []byte
	Dropped int64
}

// Dial connects to the holder at socket, refusing a socket or a listener
// of another user (unixsock.Dial), and reads its hello.
func Dial(log hclog.Logger, socket string) (*Client, error) {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	uc, err := unixsock.Dial(socket, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("dial holder: %w", err)
	}
	c := &Client{
		log:    log.Named("holder-client"),
		lc:     newLineConn(uc, maxReply, 0),
		done:   make(chan struct{}),
		notify: make(chan struct{}, 1),
		events: make(chan Event, eventQueue),
	}
	_ = uc.SetReadDeadline(time.Now().Add(5 * time.Second))
	var hello Message
	line, err := c.lc.readLine()
	if err == nil {
		err = json.Unmarshal(line, &hello)
	}
	if err == nil && (hello.Kind != KindHello || hello.Version != ProtocolVersion) {
		err = fmt.Errorf("holder speaks %q version %d, not version %d", hello.Kind, hello.Version, ProtocolVersion)
	}
	if err != nil {
		_ = uc.Close()
		return nil, fmt.Errorf("dial holder %s: hello: %w", socket, err)
	}
	_ = uc.SetReadDeadline(time.Time{})
	c.holderPid = hello.Pid
	go c.read()
	return c, nil
}

// HolderPid is the holder's pid, as its hello said.
func (c *Client) HolderPid() int { return c.holderPid }

// Events delivers the holder's events; it is closed when the connection
// ends. A client that does not read them is dropped by the holder.
func (c *Client) Events() <-chan Event { return c.events }

// read dispatches the holder's messages until the connection ends.
func (c *Client) read() {
	defer close(c.events)
	defer c.lc.closeFDs()
	for {
		line, err := c.lc.readLine()
		if err != nil {
			c.end(err)
			return
		}
		var m Message
		if err := json.Unmarshal(line, &m); err != nil {
			c.end(fmt.Errorf("holder message: %w", err))
			return
		}
		if m.Kind == KindEvent {
			if m.Event == nil {
				continue
			}
			select {
			case c.events <- *m.Event:
			default: // nobody reads them: List tells what was missed
				c.log.Warn("holder event dropped: Events not read", "kind", m.Event.Kind, "agent", m.Event.Agent.ID)
			}
			continue
		}
		fd := -1
		if m.Kind == KindAdopted && m.FD {
			var ok bool
			if fd, ok = c.lc.takeFD(); !ok {
				c.end(errors.New("holder message: a master announced and not sent"))
				return
			}
		}
		c.mu.Lock()
		if !c.waiting || m.Seq != c.seq {
			c.mu.Unlock()
			if fd >= 0 {
				_ = unix.Close(fd)
			}
			c.log.Warn("holder message for no request", "kind", m.Kind, "seq", m.Seq)
			continue
		}
		c.pending = append(c.pending, incoming{m, fd})
		c.mu.Unlock()
		select {
		case c.notify <- struct{}{}:
		default:
		}
	}
}

func (c *Client) end(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
		close(c.done)
	}
	c.mu.Unlock()
}

// call sends req and collects its messages up to its reply. Descriptors
// of messages it does not return (its caller gave up) are closed.
func (c *Client) call(ctx context.Context, req Request) ([]incoming, error) {
	c.reqMu.Lock()
	defer c.reqMu.Unlock()
	c.mu.Lock()
	c.seq++
	req.Seq = c.seq
	c.waiting, c.pending = true, nil
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		left := c.pending
		c.waiting, c.pending = false, nil
		c.mu.Unlock()
		for _, m := range left {
			if m.fd >= 0 {
				_ = unix.Close(m.fd)
			}
		}
	}()
	if err := c.lc.writeJSON(req, -1); err != nil {
		return nil, fmt.Errorf("holder %s: %w", req.Op, err)
	}
	var got []incoming
	take := func() (done bool, err error) {
		c.mu.Lock()
		batch := c.pending
		c.pending = nil
		c.mu.Unlock()
		for _, m := range batch {
			got = append(got, m)
			if m.Kind == KindReply {
				if m.Error != "" {
					return true, fmt.Errorf("holder: %s", m.Error)
				}
				return true, nil
			}
		}
		return false, nil
	}
	for {
		if done, err := take(); done {
			return got, err
		}
		select {
		case <-c.notify:
		case <-c.done:
			if done, err := take(); done {
				return got, err
			}
			return got, fmt.Errorf("holder %s: connection ended: %w", req.Op, c.err)
		case <-ctx.Done():
			// The connection is out of step now: end it.
			_ = c.lc.c.Close()
			return got, fmt.Errorf("holder %s: %w", req.Op, ctx.Err())
		}
	}
}
