// Package codexapp joins a Codex thread through Codex's app-server as a
// second client beside the TUI (codex --remote unix://PATH): it reads turn
// boundaries, approval requests, usage-limit errors and token counts as
// messages, and never answers a server request (docs/design-channels.md).
// The session of a Codex agent started with it (Launch) reads these
// beside the screen (supervisor/session/channel.go).
package codexapp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/internal/unixsock"
	"github.com/wardenhq/warden/protocol/profile"
)

// Kind is what an Event says.
type Kind string

const (
	// Waiting: the agent waits on a person (an approval or input request,
	// or the thread's waitingOnApproval flag before warden subscribed).
	Waiting Kind = "waiting"
	// Resolved: the request Waiting named was answered (by the TUI or
	// anyone), or the thread no longer waits.
	Resolved Kind = "resolved"
	// TurnStarted: a turn of the thread began.
	TurnStarted Kind = "turn_started"
	// TurnCompleted: a turn of the thread ended (Status: completed,
	// interrupted, failed).
	TurnCompleted Kind = "turn_completed"
	// RateLimits: the account's usage windows (Limits).
	RateLimits Kind = "rate_limits"
	// Limit: a turn failed on a usage or rate limit (Status: Codex's
	// codexErrorInfo).
	Limit Kind = "limit"
	// Tokens: the thread's token usage (Total, Input, Window).
	Tokens Kind = "tokens"
)

// Event is one thing the channel read.
type Event struct {
	Kind   Kind
	Thread string
	// Text is a waiting request's own words: its reason and command (or
	// what else it asks).
	Text string
	// Request is the server request's id (Waiting, Resolved), as sent;
	// Method the request's method (Waiting).
	Request, Method string
	Status          string
	Total           int64 // Tokens: total tokens of the thread
	Input           int64 // Tokens: the input tokens of the last request: the context in use
	Window          int64 // Tokens: the model's context window (0: unknown)
	// Limits are the usage windows (RateLimits).
	Limits []profile.RateLimit
}

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
	done   chan struct{}
	err    error
	peer   int // the pid that listens, as the kernel says
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

// handle reads one message. Server requests (an id and a method) are
// never answered.
func (c *Client) handle(m message) {
	if m.Method == "" { // a response
		c.mu.Lock()
		if c.asking && string(m.ID) == fmt.Sprint(c.resume) {
			c.asking, c.joined = false, m.Error == nil
		}
		c.mu.Unlock()
		return
	}
	var p struct {
		ThreadID  string `json:"threadId"`
		RequestID any    `json:"requestId"`
		Thread    struct {
			ID        string `json:"id"`
			Ephemeral bool   `json:"ephemeral"`
		} `json:"thread"`
		Status struct {
			Type        string   `json:"type"`
			ActiveFlags []string `json:"activeFlags"`
		} `json:"status"`
		Turn struct {
			Status string `json:"status"`
		} `json:"turn"`
		Error struct {
			CodexErrorInfo any    `json:"codexErrorInfo"`
			Message        string `json:"message"`
		} `json:"error"`
		WillRetry  bool `json:"willRetry"`
		TokenUsage struct {
			Total struct {
				TotalTokens int64 `json:"totalTokens"`
			} `json:"total"`
			Last struct {
				InputTokens int64 `json:"inputTokens"`
			} `json:"last"`
			ModelContextWindow int64 `json:"modelContextWindow"`
		} `json:"tokenUsage"`
		RateLimits rateLimits `json:"rateLimits"`
		Reason     string     `json:"reason"`
		Command    string     `json:"command"`
		Question   string     `json:"question"`
		Message    string     `json:"message"`
		Paths      []string   `json:"paths"`
	}
	_ = json.Unmarshal(m.Params, &p)
	c.mu.Lock()
	main := c.thread
	c.mu.Unlock()
	switch {
	case m.Method == "thread/started":
		c.mu.Lock()
		if c.thread == "" && !p.Thread.Ephemeral {
			c.thread = p.Thread.ID
		}
		c.mu.Unlock()
	case m.Method == "thread/status/changed" && p.ThreadID == main:
		c.mu.Lock()
		join := !c.joined && !c.asking
		c.mu.Unlock()
		if join { // its rollout exists once a turn has begun
			_ = c.request("thread/resume", map[string]string{"threadId": main})
		}
		if hasFlag(p.Status.ActiveFlags, "waitingOnApproval", "waitingOnUserInput") {
			if !c.subscribed() {
				// Not subscribed yet: the request itself will not come here.
				c.emit(Event{Kind: Waiting, Thread: main, Status: strings.Join(p.Status.ActiveFlags, ",")})
			}
		} else {
			c.emit(Event{Kind: Resolved, Thread: main, Status: p.Status.Type})
		}
	case len(m.ID) > 0 && strings.Contains(m.Method, "request") || m.Method == "execCommandApproval" || m.Method == "applyPatchApproval":
		if p.ThreadID != "" && p.ThreadID != main {
			return
		}
		c.emit(Event{Kind: Waiting, Thread: main, Request: string(m.ID), Method: m.Method,
			Text: requestText(m.Method, p.Reason, p.Command, p.Question, p.Message, p.Paths)})
	case m.Method == "serverRequest/resolved" && p.ThreadID == main:
		c.emit(Event{Kind: Resolved, Thread: main, Request: fmt.Sprint(p.RequestID)})
	case m.Method == "turn/started" && p.ThreadID == main:
		c.emit(Event{Kind: TurnStarted, Thread: main})
	case m.Method == "turn/completed" && p.ThreadID == main:
		c.emit(Event{Kind: TurnCompleted, Thread: main, Status: p.Turn.Status})
	case m.Method == "error" && p.ThreadID == main && !p.WillRetry:
		info := fmt.Sprint(p.Error.CodexErrorInfo)
		if strings.Contains(info, "usageLimitExceeded") || strings.Contains(info, "rateLimitExceeded") {
			c.emit(Event{Kind: Limit, Thread: main, Status: info, Text: p.Error.Message})
		}
	case m.Method == "thread/tokenUsage/updated" && p.ThreadID == main:
		c.emit(Event{Kind: Tokens, Thread: main, Total: p.TokenUsage.Total.TotalTokens,
			Input: p.TokenUsage.Last.InputTokens, Window: p.TokenUsage.ModelContextWindow})
	case m.Method == "account/rateLimits/updated":
		if l := p.RateLimits.windows(); len(l) > 0 {
			c.emit(Event{Kind: RateLimits, Limits: l})
		}
	}
}

// subscribed reports whether the client joined the thread.
func (c *Client) subscribed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.joined
}

// rateLimits is account/rateLimits/updated's snapshot.
type rateLimits struct {
	Primary, Secondary *struct {
		UsedPercent float64 `json:"usedPercent"`
		ResetsAt    int64   `json:"resetsAt"`
	}
}

func (r rateLimits) windows() []profile.RateLimit {
	var out []profile.RateLimit
	if w := r.Primary; w != nil {
		out = append(out, profile.RateLimit{Window: "primary", UsedPercent: w.UsedPercent, ResetsAt: w.ResetsAt})
	}
	if w := r.Secondary; w != nil {
		out = append(out, profile.RateLimit{Window: "secondary", UsedPercent: w.UsedPercent, ResetsAt: w.ResetsAt})
	}
	return out
}

func hasFlag(flags []string, want ...string) bool {
	for _, f := range flags {
		for _, w := range want {
			if f == w {
				return true
			}
		}
	}
	return false
}

// requestText is a server request's own words, as a person would read them.
func requestText(method, reason, command, question, message string, paths []string) string {
	var parts []string
	for _, s := range []string{reason, command, question, message} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if len(paths) > 0 {
		parts = append(parts, strings.Join(paths, ", "))
	}
	if len(parts) == 0 {
		return method
	}
	return strings.Join(parts, ": ")
}
