// Package codexapp joins a Codex thread through Codex's app-server as a
// second client beside the TUI (codex --remote unix://PATH): it reads turn
// boundaries, approval requests, usage-limit errors and token counts as
// messages, and never answers a server request of itself
// (docs/design-channels.md); Launch starts the server beside the TUI.
// The session of a Codex agent started with it (Launch) reads these
// beside the screen (supervisor/session/channel.go).
package codexapp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/wardenhq/warden/internal/unixsock"
	"github.com/wardenhq/warden/protocol/profile"
)

// Client is one connection to an app-server.
type Client struct {
	ws     *wsConn
	events chan Event
	mu     sync.Mutex
	nextID int
	thread string // the TUI's thread, the first non-ephemeral one started
	joined bool   // subscribed through thread/resume
	asking bool   // a thread/resume is in flight
	resume int    // its request id
	tries  int    // thread/resume requests sent
	// fullResume: the server refused excludeTurns (a Codex older than
	// 0.171.0's schema): thread/resume is asked without it (resume.go).
	fullResume bool
	// limits are the account's usage windows as merged from its sparse
	// account/rateLimits/updated (ratelimits.go), by limit and window.
	limits map[string]profile.RateLimit
	// stopTurn is the last turn whose typed stop was reported (the error
	// notification and turn/completed both carry it: stops.go).
	stopTurn string
	done     chan struct{}
	err      error
	peer     int // the pid that listens, as the kernel says
}

// Peer is the pid of the process that listens on the socket, as the kernel
// said when the client connected.
func (c *Client) Peer() int { return c.peer }

// Dial connects to the app-server's unix socket (only one of this user's,
// in a private directory: unixsock.Dial; Codex links path to its own
// socket in /tmp/codex-daemon-UID), initializes, and starts reading;
// events arrive on Events until the connection ends (Err).
func Dial(path string) (*Client, error) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, fmt.Errorf("codexapp: %w", err)
	}
	conn, err := unixsock.Dial(target, 2*time.Second)
	if err != nil {
		return nil, fmt.Errorf("codexapp: %w", err)
	}
	ws, err := upgrade(conn)
	if err != nil {
		return nil, err
	}
	c := &Client{ws: ws, events: make(chan Event, 64), done: make(chan struct{}), peer: unixsock.PeerOf(conn).Pid}
	// The name of the first client to initialize becomes the server's
	// originator, the head of the User-Agent of every request to the
	// provider, the TUI's too: warden, often first, names the TUI's own,
	// so that what Codex sends upstream is what it sends without warden.
	if err := c.request("initialize", map[string]any{"clientInfo": map[string]string{
		"name": "codex-tui", "title": "warden", "version": "1"}}); err != nil {
		ws.close()
		return nil, err
	}
	if err := c.send(map[string]any{"method": "initialized"}); err != nil {
		ws.close()
		return nil, err
	}
	go c.readLoop()
	return c, nil
}

// Events are what the channel read, in order.
func (c *Client) Events() <-chan Event { return c.events }

// Done is closed when the connection has ended; Err says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is why the connection ended (nil while it lasts).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection.
func (c *Client) Close() error { return c.ws.close() }

func (c *Client) send(msg map[string]any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("codexapp: encode: %w", err)
	}
	if err := c.ws.write(0x1, b); err != nil {
		return fmt.Errorf("codexapp: send: %w", err)
	}
	return nil
}

// request sends a client request; its response is read by the loop.
func (c *Client) request(method string, params any) error {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	if method == "thread/resume" {
		c.resume, c.asking = id, true
		c.tries++
	}
	c.mu.Unlock()
	return c.send(map[string]any{"method": method, "id": id, "params": params})
}

// Respond answers the server request id (as an Event's Request carries
// it) with result: a person's decision, which warden only passes on.
func (c *Client) Respond(id string, result any) error {
	if !json.Valid([]byte(id)) {
		return fmt.Errorf("codexapp: request id %q is not JSON", id)
	}
	return c.send(map[string]any{"id": json.RawMessage(id), "result": result})
}

// message is any JSON-RPC message of the app-server.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (c *Client) readLoop() {
	defer close(c.done)
	defer close(c.events)
	for {
		b, err := c.ws.read()
		if err != nil {
			c.mu.Lock()
			c.err = fmt.Errorf("codexapp: read: %w", err)
			c.mu.Unlock()
			return
		}
		var m message
		if json.Unmarshal(b, &m) != nil {
			continue // not JSON-RPC: ignored
		}
		c.handle(m)
	}
}

func (c *Client) emit(e Event) { c.events <- e }
