package codexapp

import (
	"slices"

	"github.com/wardenhq/warden/protocol/profile"
)

// rateLimits is account/rateLimits/updated's snapshot (RateLimitSnapshot
// in Codex 0.171.0's schema). The notification is a sparse, rolling
// update: a window it does not carry (absent or null) keeps the value it
// had, and null account metadata does not clear what was seen before.
type rateLimits struct {
	// LimitID names the quota the windows belong to (null: the account's
	// own); each quota's windows are merged apart.
	LimitID   *string     `json:"limitId"`
	Primary   *rateWindow `json:"primary"`
	Secondary *rateWindow `json:"secondary"`
	// RateLimitReachedType and SpendControlReached say the account (or
	// its workspace) is at a limit (stops.go).
	RateLimitReachedType *string `json:"rateLimitReachedType"`
	SpendControlReached  *bool   `json:"spendControlReached"`
	IndividualLimit      *struct {
		ResetsAt int64 `json:"resetsAt"`
	} `json:"individualLimit"`
}

// rateWindow is one usage window (RateLimitWindow).
type rateWindow struct {
	UsedPercent float64 `json:"usedPercent"`
	ResetsAt    int64   `json:"resetsAt"`
}

// carried is the windows the snapshot carries, by name.
func (r rateLimits) carried() map[string]*rateWindow {
	return map[string]*rateWindow{"primary": r.Primary, "secondary": r.Secondary}
}

// mergeLimits merges an update into the windows the client knows, and
// returns every window it knows, in a stable order: a window the update
// does not carry is reported with its last value, never dropped.
func (c *Client) mergeLimits(r rateLimits) []profile.RateLimit {
	id := ""
	if r.LimitID != nil {
		id = *r.LimitID
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.limits == nil {
		c.limits = map[string]profile.RateLimit{}
	}
	for name, w := range r.carried() {
		if w != nil {
			c.limits[id+"\x00"+name] = profile.RateLimit{Window: name, UsedPercent: w.UsedPercent, ResetsAt: w.ResetsAt}
		}
	}
	keys := make([]string, 0, len(c.limits))
	for k := range c.limits {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the account's own quota ("") first, primary before secondary
	out := make([]profile.RateLimit, 0, len(keys))
	for _, k := range keys {
		out = append(out, c.limits[k])
	}
	return out
}
