package codexapp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"

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
	// Limit: a turn failed on a usage or rate limit, or the account's
	// snapshot says it is at one (Status: Codex's word, Resets: the
	// reset when the snapshot gives one; stops.go).
	Limit Kind = "limit"
	// Stopped: a turn ended or failed on a typed reason of Codex's that
	// is not the account's limit (Status: Codex's word, such as
	// sessionBudgetExceeded or tooManyDenials; Text: its message).
	Stopped Kind = "stopped"
	// Tokens: the thread's token usage (Total, Input, Window).
	Tokens Kind = "tokens"
	// Joined: warden's thread/resume of the TUI's thread was answered:
	// subscribed, or (Text) the server's refusal, retried soon.
	Joined Kind = "joined"
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
	Resets          int64 // Limit: when the limit resets, in Unix seconds (0: not given)
	// Limits are the usage windows (RateLimits).
	Limits []profile.RateLimit
}

// handle reads one message. Server requests (an id and a method) are
// never answered.
func (c *Client) handle(m message) {
	if m.Method == "" { // a response
		c.resumed(m)
		return
	}
	var p struct {
		ThreadID  string `json:"threadId"`
		TurnID    string `json:"turnId"`
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
			ID     string     `json:"id"`
			Status string     `json:"status"`
			Error  *turnError `json:"error"`
		} `json:"turn"`
		Error      turnError `json:"error"`
		WillRetry  bool      `json:"willRetry"`
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
		// item/tool/requestUserInput (0.171.0): its text is in
		// questions[].question (ToolRequestUserInputQuestion).
		Questions []struct {
			Question string `json:"question"`
		} `json:"questions"`
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
			_ = c.request("thread/resume", c.resumeParams(main))
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
			Text: requestText(m.Method, p.Reason, p.Command, cmp.Or(p.Question, questionsText(p.Questions)), p.Message, p.Paths)})
	case m.Method == "serverRequest/resolved" && p.ThreadID == main:
		c.emit(Event{Kind: Resolved, Thread: main, Request: fmt.Sprint(p.RequestID)})
	case m.Method == "turn/started" && p.ThreadID == main:
		c.emit(Event{Kind: TurnStarted, Thread: main})
	case m.Method == "turn/completed" && p.ThreadID == main:
		if p.Turn.Error != nil {
			c.stopped(main, p.Turn.ID, *p.Turn.Error)
		}
		c.emit(Event{Kind: TurnCompleted, Thread: main, Status: p.Turn.Status})
	case m.Method == "error" && p.ThreadID == main && !p.WillRetry:
		c.stopped(main, p.TurnID, p.Error)
	case m.Method == "thread/tokenUsage/updated" && p.ThreadID == main:
		c.emit(Event{Kind: Tokens, Thread: main, Total: p.TokenUsage.Total.TotalTokens,
			Input: p.TokenUsage.Last.InputTokens, Window: p.TokenUsage.ModelContextWindow})
	case m.Method == "account/rateLimits/updated":
		if l := c.mergeLimits(p.RateLimits); len(l) > 0 {
			c.emit(Event{Kind: RateLimits, Limits: l})
		}
		c.accountStopped(main, p.RateLimits)
	}
}

// resumed reads the response to a thread/resume. A refused one is asked
// again resumeRetry later, up to maxResumeTries in all: under load Codex
// may not have written the thread's rollout yet when its first turn
// begins ("no rollout found"), and the next thread/status/changed — the
// approval itself — comes too late for its request to reach warden.
func (c *Client) resumed(m message) {
	c.mu.Lock()
	if !c.asking || string(m.ID) != fmt.Sprint(c.resume) {
		c.mu.Unlock()
		return
	}
	c.joined = m.Error == nil
	if !c.joined && refusesExcludeTurns(m.Error) {
		c.fullResume = true // an older Codex: asked again without it
	}
	retry := !c.joined && c.tries < maxResumeTries
	c.asking = retry // no other resume meanwhile
	thread := c.thread
	c.mu.Unlock()
	if c.joined {
		c.emit(Event{Kind: Joined, Thread: thread})
		return
	}
	c.emit(Event{Kind: Joined, Thread: thread, Text: string(m.Error)})
	if retry {
		time.AfterFunc(resumeRetry, func() { _ = c.request("thread/resume", c.resumeParams(thread)) })
	}
}

const (
	resumeRetry    = 100 * time.Millisecond
	maxResumeTries = 50
)

// subscribed reports whether the client joined the thread.
func (c *Client) subscribed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.joined
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

// questionsText is the questions of an item/tool/requestUserInput, one a
// line, in place of the method's name.
func questionsText(qs []struct {
	Question string `json:"question"`
}) string {
	var lines []string
	for _, q := range qs {
		if q.Question != "" {
			lines = append(lines, q.Question)
		}
	}
	return strings.Join(lines, "\n")
}
