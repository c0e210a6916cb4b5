// Package codexapp joins a Codex thread through Codex's app-server as a
// second client beside the TUI (codex --remote unix://PATH): it reads turn
// boundaries, approval requests, usage-limit errors and token counts as
// messages, and never answers a server request (docs/design-channels.md).
// It is not wired into the supervisor yet: warden reads Codex off its
// screen, its notify program and its rollout file.
package codexapp

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
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
	// TurnCompleted: a turn of the thread ended (Status: completed,
	// interrupted, failed).
	TurnCompleted Kind = "turn_completed"
	// Limit: a turn failed on a usage or rate limit (Status: Codex's
	// codexErrorInfo).
	Limit Kind = "limit"
	// Tokens: the thread's token usage (Total, Window).
	Tokens Kind = "tokens"
)

// Event is one thing the channel read.
type Event struct {
	Kind   Kind
	Thread string
	// Text is a waiting request's own words: its reason and command (or
	// what else it asks).
	Text string
	// Request is the server request's id (Waiting, Resolved), as sent.
	Request string
	Status  string
	Total   int64 // Tokens: total tokens of the thread
	Window  int64 // Tokens: the model's context window (0: unknown)
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
}

// Dial connects to the app-server's unix socket, initializes, and starts
// reading; events arrive on Events until the connection ends (Err).
func Dial(path string) (*Client, error) {
	ws, err := dialWS(path)
	if err != nil {
		return nil, err
	}
	c := &Client{ws: ws, events: make(chan Event, 64), done: make(chan struct{})}
	if err := c.request("initialize", map[string]any{"clientInfo": map[string]string{
		"name": "warden", "title": "warden", "version": "1"}}); err != nil {
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
			ModelContextWindow int64 `json:"modelContextWindow"`
		} `json:"tokenUsage"`
		Reason   string   `json:"reason"`
		Command  string   `json:"command"`
		Question string   `json:"question"`
		Message  string   `json:"message"`
		Paths    []string `json:"paths"`
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
			c.emit(Event{Kind: Waiting, Thread: main, Status: strings.Join(p.Status.ActiveFlags, ",")})
		} else {
			c.emit(Event{Kind: Resolved, Thread: main, Status: p.Status.Type})
		}
	case len(m.ID) > 0 && strings.Contains(m.Method, "request") || m.Method == "execCommandApproval" || m.Method == "applyPatchApproval":
		if p.ThreadID != "" && p.ThreadID != main {
			return
		}
		c.emit(Event{Kind: Waiting, Thread: main, Request: string(m.ID), Text: requestText(m.Method, p.Reason, p.Command, p.Question, p.Message, p.Paths)})
	case m.Method == "serverRequest/resolved" && p.ThreadID == main:
		c.emit(Event{Kind: Resolved, Thread: main, Request: fmt.Sprint(p.RequestID)})
	case m.Method == "turn/completed" && p.ThreadID == main:
		c.emit(Event{Kind: TurnCompleted, Thread: main, Status: p.Turn.Status})
	case m.Method == "error" && p.ThreadID == main && !p.WillRetry:
		info := fmt.Sprint(p.Error.CodexErrorInfo)
		if strings.Contains(info, "usageLimitExceeded") || strings.Contains(info, "rateLimitExceeded") {
			c.emit(Event{Kind: Limit, Thread: main, Status: info, Text: p.Error.Message})
		}
	case m.Method == "thread/tokenUsage/updated" && p.ThreadID == main:
		c.emit(Event{Kind: Tokens, Thread: main, Total: p.TokenUsage.Total.TotalTokens, Window: p.TokenUsage.ModelContextWindow})
	}
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
