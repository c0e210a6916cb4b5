package fakeprovider

import "time"

// Usage is the tokens one answer served, in one form for the three APIs:
// Input is the whole prompt (the cached and cache-written parts included),
// CachedInput the part read from the prompt cache, CacheWrite the part
// written to it (Anthropic only), Output the reply. Each API reports them
// in its own fields (anthropic.go, openai.go, gemini.go).
type Usage struct {
	Input, CachedInput, CacheWrite, Output int
}

// Add returns the sum of u and o.
func (u Usage) Add(o Usage) Usage {
	return Usage{Input: u.Input + o.Input, CachedInput: u.CachedInput + o.CachedInput,
		CacheWrite: u.CacheWrite + o.CacheWrite, Output: u.Output + o.Output}
}

// served is the usage an answer reports for a request body of bodyBytes:
// the scripted counts, or estimates (4 bytes a token); the cached and
// cache-written parts never exceed the prompt.
func served(a Answer, bodyBytes int) Usage {
	u := Usage{Input: a.InputTokens, Output: a.OutputTokens}
	if u.Input <= 0 {
		u.Input = bodyBytes/4 + 1
	}
	if u.Output <= 0 {
		u.Output = len(a.Text)/4 + 1
		if a.Tool != nil {
			u.Output += (len(a.Tool.Command)+len(a.Tool.Description)+len(a.Tool.Name))/4 + 10
		}
	}
	u.CachedInput = min(max(a.CachedTokens, 0), u.Input)
	u.CacheWrite = min(max(a.CacheWriteTokens, 0), u.Input-u.CachedInput)
	return u
}

// Ledger is every request the server answered, oldest first, with the
// tokens it served: what a test compares a CLI's own figures with.
type Ledger []Request

// Ledger returns every request answered so far.
func (s *Server) Ledger() Ledger { return Ledger(s.Requests()) }

// Where keeps the requests for which keep is true.
func (l Ledger) Where(keep func(Request) bool) Ledger {
	var out Ledger
	for _, r := range l {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// Main keeps the CLI's own turns that the model answered: no side call
// (titles, routing), no error, no static answer.
func (l Ledger) Main() Ledger {
	return l.Where(func(r Request) bool { return !r.Side && (r.Answered == "text" || r.Answered == "tool_call") })
}

// Of keeps the requests of one account (see AccountHeader).
func (l Ledger) Of(account string) Ledger {
	return l.Where(func(r Request) bool { return r.Account == account })
}

// Between keeps the requests that came in [from, to).
func (l Ledger) Between(from, to time.Time) Ledger {
	return l.Where(func(r Request) bool { return !r.At.Before(from) && r.At.Before(to) })
}

// Served is the sum of the tokens served.
func (l Ledger) Served() Usage {
	var u Usage
	for _, r := range l {
		u = u.Add(r.Served)
	}
	return u
}

// Refused counts the requests a limit window refused.
func (l Ledger) Refused() int {
	return len(l.Where(func(r Request) bool { return r.Refused }))
}
