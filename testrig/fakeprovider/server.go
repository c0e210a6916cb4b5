package fakeprovider

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// maxBody caps how much of a request body is read.
const maxBody = 32 << 20

// Server is the fake provider API on 127.0.0.1.
type Server struct {
	logger hclog.Logger
	script Script
	srv    *httptest.Server

	mu       sync.Mutex
	next     int
	requests []Request
	ids      int
	windows  []*LimitWindow
	quotas   map[string]Quota
}

// AccountHeader is the request header that tells apart the agents (or
// accounts) sharing one server: each CLI sends it from its own
// environment (Claude ANTHROPIC_CUSTOM_HEADERS, Codex env_http_headers in
// its provider config, Gemini GEMINI_CLI_CUSTOM_HEADERS). It is recorded
// as Request.Account and selects a LimitWindow's and a Quota's account.
const AccountHeader = "X-Fake-Account"

// New starts a fake provider answering from script. Close it when done.
func New(logger hclog.Logger, script Script) *Server {
	if script.Clock == nil {
		script.Clock = realClock{}
	}
	if script.ChunkRunes <= 0 {
		script.ChunkRunes = 24
	}
	s := &Server{logger: logger.Named("fakeprovider"), script: script}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.logger.Debug("listening", "url", s.srv.URL)
	return s
}

// URL is the base URL, http://127.0.0.1:PORT, without a trailing slash.
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server and waits for open requests to finish.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns every request seen so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	copy(out, s.requests)
	return out
}

func (s *Server) record(req Request) {
	if req.Status == 0 {
		req.Status = http.StatusOK
		if req.Answered == "not_found" {
			req.Status = http.StatusNotFound
		}
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	s.logger.Debug("request", "provider", req.Provider, "method", req.Method, "path", req.Path,
		"model", req.Model, "side", req.Side, "stream", req.Stream, "answered", req.Answered,
		"tool_results", len(req.ToolResults), "user_agent", req.UserAgent)
}

// newID returns a fresh id with the given prefix, unique in this server.
func (s *Server) newID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return fmt.Sprintf("%s%024d", prefix, s.ids)
}

// answerFor picks the answer to a main request.
func (s *Server) answerFor(req Request) Answer {
	if s.script.Decide != nil {
		return s.script.Decide(req)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.script.Answers) == 0 {
		return Answer{Text: "OK"}
	}
	i := s.next
	if i >= len(s.script.Answers) {
		i = len(s.script.Answers) - 1
	} else {
		s.next++
	}
	return s.script.Answers[i]
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		s.logger.Warn("read request body", "path", r.URL.Path, "error", err)
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	req := Request{Method: r.Method, Path: r.URL.Path, UserAgent: r.UserAgent(), BodyBytes: len(body), Body: string(body),
		At: s.script.Clock.Now(), Account: r.Header.Get(AccountHeader)}
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, "/v1/messages") || path == "/api/hello" || path == "/":
		req.Provider = Anthropic
		s.serveAnthropic(w, r, body, req)
	case isChat(path):
		req.Provider = OpenAI
		s.serveChat(w, r, body, req)
	case strings.HasPrefix(path, "/v1/responses") || path == "/v1/models" || path == "/models":
		req.Provider = OpenAI
		s.serveOpenAI(w, r, body, req)
	case strings.Contains(path, "/models/"):
		req.Provider = Gemini
		s.serveGemini(w, r, body, req)
	default:
		req.Answered = "not_found"
		s.record(req)
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{
			"type": "not_found_error", "message": "fakeprovider: no route for " + path}})
	}
}

// reply turns a main or side request into an Answer and notes in req what
// was answered: the status and, for a model reply, the tokens served. An
// open LimitWindow refuses every request it covers, side calls included.
func (s *Server) reply(req *Request, schema map[string]any) Answer {
	var a Answer
	if w := s.window(req); w != nil {
		w.refused.Add(1)
		lim := w.limit()
		req.Refused, a = true, Answer{Limit: &lim}
	} else if req.Side {
		req.Answered = "json"
		a = Answer{Text: string(mustJSON(fillSchema(schema, 0)))}
	} else {
		a = s.answerFor(*req)
	}
	switch {
	case a.Limit != nil:
		req.Answered, req.Status = a.Limit.Kind.String(), http.StatusTooManyRequests
	default:
		if !req.Side {
			req.Answered = answerKind(a)
		}
		req.Status, req.Served = http.StatusOK, served(a, req.BodyBytes)
	}
	return a
}

// chunks splits text into deltas of at most n runes.
func chunks(text string, n int) []string {
	var out []string
	runes := []rune(text)
	for len(runes) > 0 {
		k := min(n, len(runes))
		out = append(out, string(runes[:k]))
		runes = runes[k:]
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

// sse writes server-sent events, flushing each one and pausing between
// deltas at the script's pace.
type sse struct {
	w    http.ResponseWriter
	r    *http.Request
	pace time.Duration
	clk  Clock
}

func (s *Server) startSSE(w http.ResponseWriter, r *http.Request) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sse{w: w, r: r, pace: s.script.Pace, clk: s.script.Clock}
}

// event writes one event; an empty name writes a data-only event.
func (e *sse) event(name string, data any) {
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", mustJSON(data))
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// pause waits the pace between deltas; false if the client went away.
func (e *sse) pause() bool {
	if e.pace <= 0 {
		return e.r.Context().Err() == nil
	}
	select {
	case <-e.clk.After(e.pace):
		return true
	case <-e.r.Context().Done():
		return false
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(mustJSON(v))
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Only maps, slices and scalars built here are marshalled, so this
		// does not happen; answer with a JSON error rather than nothing.
		return []byte(`{"error":"fakeprovider: marshal failed"}`)
	}
	return b
}
