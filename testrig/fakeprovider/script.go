// Package fakeprovider is a scripted stand-in for the model APIs that the
// real agent CLIs talk to: the Anthropic Messages API (Claude Code), the
// OpenAI Responses API (Codex CLI), the OpenAI Chat Completions API
// (OpenCode, Qwen Code: chat.go) and the Gemini generateContent API (Gemini
// CLI). It listens on 127.0.0.1, streams each scripted answer the way the
// real API does (server-sent events, with token usage so context gauges
// move), can answer with one shell tool call (which makes each CLI draw its
// approval dialog) and records the tool results the CLI sends back, and can
// answer with a usage-limit or rate-limit error in each provider's real
// shape. Side calls that the CLIs make on their own (thread
// titles, Gemini's model router) carry a JSON schema; they get a minimal
// object that fits it and never consume a scripted answer (so do OpenCode's
// title call and Qwen Code's auto-mode classifier, chat.go's side).
package fakeprovider

import (
	"time"
)

// Provider names the API family a request was made to.
type Provider string

// The three API families the server speaks.
const (
	Anthropic Provider = "anthropic"
	OpenAI    Provider = "openai"
	Gemini    Provider = "gemini"
)

// Clock is the time source for reset times and streaming pace;
// internal/clock's Real and Fake satisfy it.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Answer is what the fake model replies to one main request.
type Answer struct {
	// Text is the assistant's reply, streamed in chunks.
	Text string
	// InputTokens is the whole prompt reported in usage, the cached part
	// included; zero estimates it from the request body (4 bytes a token).
	InputTokens int
	// CachedTokens is the part of the prompt read from the provider's
	// prompt cache: Anthropic's cache_read_input_tokens, OpenAI's
	// input_tokens_details.cached_tokens, Gemini's cachedContentTokenCount.
	CachedTokens int
	// CacheWriteTokens is the part of the prompt written to the cache
	// (Anthropic's cache_creation_input_tokens; the others have none and
	// count it as plain input).
	CacheWriteTokens int
	// OutputTokens is the reply size reported in usage; zero estimates it
	// from Text.
	OutputTokens int
	// Tool, when set, makes the reply one shell tool call, after Text if
	// that is not empty.
	Tool *ToolCall
	// Limit, when set, replaces the reply with the provider's error.
	Limit *Limit
}

// Request is what the server saw of one API call; Script.Decide gets it and
// Server.Requests lists them.
type Request struct {
	Provider  Provider
	Method    string
	Path      string
	UserAgent string
	Model     string
	Stream    bool
	// Prompt is the text of the newest user message: the one after the
	// model's last output. It is "" when the request only brings tool
	// results back, so a Decide that matches on the first prompt does not
	// match again. Claude wraps a pasted prompt in <pasted_content …>.
	Prompt string
	// ToolResults are the tool results that came in with the newest user
	// input (not those further back in the history).
	ToolResults []ToolResult
	// Side is true for schema-constrained calls the CLI makes on its own
	// (titles, routing); they are answered from the schema.
	Side bool
	// BodyBytes is the size of the request body; Body is the body itself
	// (system prompt, messages, tools), for tests that look for what the
	// CLI sent besides the newest prompt.
	BodyBytes int
	Body      string
	// Answered says what the server sent: "text", "tool_call", "json",
	// "usage_limit", "rate_limit", "static" or "not_found".
	Answered string
	// ToolCallID identifies the tool call sent in answer (Answered
	// "tool_call"): Anthropic's tool_use id, OpenAI's call_id, and for
	// Gemini, whose API gives calls no id, the function name. ResultOf and
	// ToolResult.For take it.
	ToolCallID string

	// The ledger's fields (ledger.go).
	// At is when the request came, on the script's clock.
	At time.Time
	// Status is the HTTP status answered.
	Status int
	// Served is the token usage the answer reported (zero for an error).
	Served Usage
	// Account is the request's AccountHeader, telling apart agents that
	// share one server ("" when the CLI sent none).
	Account string
	// Refused is true when a LimitWindow refused the request.
	Refused bool
}

// Script decides the answers. With Decide set, it answers every main
// request; otherwise Answers are used in order and the last one repeats.
// With neither, the reply is "OK".
type Script struct {
	Answers []Answer
	Decide  func(Request) Answer
	// Clock defaults to the wall clock.
	Clock Clock
	// ChunkRunes is how many characters go in one streamed delta
	// (default 24).
	ChunkRunes int
	// Pace is the pause between streamed deltas (default none).
	Pace time.Duration
}
