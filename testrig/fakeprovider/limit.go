package fakeprovider

import (
	"path"
	"sync/atomic"
	"time"
)

// LimitKind tells which error an Answer or a LimitWindow stands for.
type LimitKind int

const (
	// UsageLimit is the hard quota: Claude's unified 5-hour limit rejected,
	// Codex's usage_limit_reached, Gemini's quota exhausted. The CLIs show
	// it and do not retry.
	UsageLimit LimitKind = iota + 1
	// RateLimit is the transient per-minute limit with a retry delay; the
	// CLIs retry it on their own.
	RateLimit
)

// String names the kind for logs.
func (k LimitKind) String() string {
	switch k {
	case UsageLimit:
		return "usage_limit"
	case RateLimit:
		return "rate_limit"
	}
	return "none"
}

// Limit makes an Answer an error response instead of a model reply.
type Limit struct {
	Kind LimitKind
	// ResetIn is how long until the limit resets, from the script's clock;
	// zero means 5 hours for UsageLimit and 2 seconds for RateLimit.
	ResetIn time.Duration
	// ResetAt, when set, is the reset reported instead of now+ResetIn.
	ResetAt time.Time
	// GeminiDaily makes a Gemini usage limit the Gemini API's per-day
	// free-tier quota (QuotaFailure quotaId …PerDay…), which Gemini CLI
	// shows with no reset time; by default it is the Code Assist quota of a
	// signed-in Google account (ErrorInfo QUOTA_EXHAUSTED with a RetryInfo
	// delay to the reset), which it shows with "Access resets at …".
	GeminiDaily bool
}

// resetAt is when the limit resets, seen at now.
func (l Limit) resetAt(now time.Time) time.Time {
	if !l.ResetAt.IsZero() {
		return l.ResetAt
	}
	if l.ResetIn > 0 {
		return now.Add(l.ResetIn)
	}
	if l.Kind == RateLimit {
		return now.Add(2 * time.Second)
	}
	return now.Add(5 * time.Hour)
}

// secondsUntil is the whole seconds from now to t, at least 1.
func secondsUntil(now, t time.Time) int64 {
	s := int64(t.Sub(now).Round(time.Second) / time.Second)
	return max(s, 1)
}

// LimitWindow is a span of time in which the server refuses every model
// request (side calls included, as a real account limit does) with the
// limit error of the request's API, reporting ResetAt as the reset. It
// counts the requests it refused: a CLI that retries in a loop shows there.
type LimitWindow struct {
	// Kind defaults to UsageLimit.
	Kind LimitKind
	// From is when the window opens (zero: when it is added), on the
	// script's clock; For is how long it stays open.
	From time.Time
	For  time.Duration
	// ResetAt is the reset the errors report (zero: From+For).
	ResetAt time.Time
	// Account limits the window to requests whose AccountHeader has this
	// value ("" refuses every request).
	Account string
	// Model limits the window to requests for the models this glob
	// matches ("" every model): Gemini's quotas are per model, and its
	// model-routing side call uses another model than the turn.
	Model string
	// GeminiDaily: see Limit.
	GeminiDaily bool

	refused atomic.Int64
}

// Refused is how many requests the window refused so far.
func (w *LimitWindow) Refused() int { return int(w.refused.Load()) }

// Until is when the window closes.
func (w *LimitWindow) Until() time.Time { return w.From.Add(w.For) }

func (w *LimitWindow) covers(now time.Time, account, model string) bool {
	if w.Model != "" {
		if ok, _ := path.Match(w.Model, model); !ok {
			return false
		}
	}
	return (w.Account == "" || w.Account == account) && !now.Before(w.From) && now.Before(w.Until())
}

func (w *LimitWindow) limit() Limit {
	kind := w.Kind
	if kind == 0 {
		kind = UsageLimit
	}
	return Limit{Kind: kind, ResetAt: w.ResetAt, GeminiDaily: w.GeminiDaily}
}

// AddLimitWindow opens a limit window and returns it (its Refused count
// grows as it refuses requests).
func (s *Server) AddLimitWindow(w *LimitWindow) *LimitWindow {
	if w.From.IsZero() {
		w.From = s.script.Clock.Now()
	}
	if w.ResetAt.IsZero() {
		w.ResetAt = w.Until()
	}
	s.mu.Lock()
	s.windows = append(s.windows, w)
	s.mu.Unlock()
	s.logger.Debug("limit window", "from", w.From, "for", w.For, "reset", w.ResetAt, "account", w.Account)
	return w
}

// window returns the open window covering a request, if any.
func (s *Server) window(req *Request) *LimitWindow {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.windows {
		if w.covers(req.At, req.Account, req.Model) {
			return w
		}
	}
	return nil
}

// Quota is an account's standing in its 5-hour and weekly windows, which
// the server reports on every successful answer the way each API does:
// Anthropic's anthropic-ratelimit-unified-* headers (read by Claude Code
// signed in to claude.ai, shown in its status line's rate_limits), Codex's
// x-codex-primary-*/secondary-* headers (its "Heads up" warning and model
// switch dialog from 90 %). The Gemini API reports nothing.
type Quota struct {
	// UsedPercent is the 5-hour window's use, 0-100; ResetAt its reset.
	UsedPercent float64
	ResetAt     time.Time
	// WeeklyPercent is the weekly window's use; it resets WeeklyResetAt
	// (zero: in 5 days).
	WeeklyPercent float64
	WeeklyResetAt time.Time
}

// SetQuota makes every successful answer to account ("" every account
// without a quota of its own) report q; a nil q reports nothing again.
func (s *Server) SetQuota(account string, q *Quota) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.quotas == nil {
		s.quotas = map[string]Quota{}
	}
	if q == nil {
		delete(s.quotas, account)
		return
	}
	s.quotas[account] = *q
}

func (s *Server) quota(account string) (Quota, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q, ok := s.quotas[account]; ok {
		return q, true
	}
	q, ok := s.quotas[""]
	return q, ok
}
