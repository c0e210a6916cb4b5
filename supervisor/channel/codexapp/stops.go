package codexapp

import (
	"slices"
	"sort"
)

// turnError is a turn's error (TurnError in Codex 0.171.0's schema), as
// the error notification and turn/completed's turn carry it.
type turnError struct {
	// CodexErrorInfo is Codex's typed reason: a word
	// ("sessionBudgetExceeded"), or an object of one key
	// ({"httpConnectionFailed": {…}}).
	CodexErrorInfo any    `json:"codexErrorInfo"`
	Message        string `json:"message"`
}

// limitWords are the typed reasons that are the account's usage limit:
// every agent on that login meets it, so it parks the account.
var limitWords = []string{"usageLimitExceeded", "rateLimitExceeded"}

// word is the typed reason's name: the word, or the object's key; "" when
// the error has none.
func (e turnError) word() string {
	switch v := e.CodexErrorInfo.(type) {
	case string:
		return v
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) > 0 {
			return keys[0]
		}
	}
	return ""
}

// stopped reports a turn's typed stop once, whichever of the error
// notification (not willRetry) and turn/completed's error comes first: a
// limit word is a Limit, any other word a Stopped with Codex's word and
// message. An error without a typed reason says nothing new.
func (c *Client) stopped(thread, turn string, e turnError) {
	w := e.word()
	if w == "" {
		return
	}
	c.mu.Lock()
	again := turn != "" && turn == c.stopTurn
	c.stopTurn = turn
	c.mu.Unlock()
	if again {
		return
	}
	kind := Stopped
	if slices.Contains(limitWords, w) {
		kind = Limit
	}
	c.emit(Event{Kind: kind, Thread: thread, Status: w, Text: e.Message})
}

// accountStopped reads what a rate-limit snapshot says of a limit reached:
// rateLimitReachedType (rate_limit_reached, or a workspace's credits or
// usage limit: workspace_owner_credits_depleted, …) and
// spendControlReached (the user's spend control, its reset in
// individualLimit) are the account's, a Limit with that word. Each is
// read from the update that carries it, never from the merged windows: a
// limit once reached is not reported again by later updates that omit it.
func (c *Client) accountStopped(thread string, r rateLimits) {
	if t := r.RateLimitReachedType; t != nil && *t != "" {
		e := Event{Kind: Limit, Thread: thread, Status: *t}
		for _, w := range []*rateWindow{r.Primary, r.Secondary} {
			if w != nil && w.UsedPercent >= 100 && w.ResetsAt > e.Resets {
				e.Resets = w.ResetsAt
			}
		}
		c.emit(e)
	}
	if r.SpendControlReached != nil && *r.SpendControlReached {
		e := Event{Kind: Limit, Thread: thread, Status: "spendControlReached"}
		if r.IndividualLimit != nil {
			e.Resets = r.IndividualLimit.ResetsAt
		}
		c.emit(e)
	}
}
