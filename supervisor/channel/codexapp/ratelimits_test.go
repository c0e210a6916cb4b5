//go:build !e2e

package codexapp

import (
	"reflect"
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
)

// nextOf is the client's next event of kind k, within d.
func nextOf(t *testing.T, c *Client, k Kind, d time.Duration) Event {
	t.Helper()
	for deadline := time.After(d); ; {
		select {
		case e := <-c.events:
			if e.Kind == k {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s event within %v", k, d)
		}
	}
}

// Codex 0.171.0 documents account/rateLimits/updated as a sparse update:
// a window it does not carry (absent or null) keeps its value. A used-up
// secondary window stays used up when the next update carries only the
// primary one, and a quota of its own (limitId) is merged apart.
func TestRateLimitUpdatesAreMerged(t *testing.T) {
	c, srv := pipeClient(t)
	srv.send(`{"method":"account/rateLimits/updated","params":{"rateLimits":{"primary":{"usedPercent":40,"resetsAt":1000},"secondary":{"usedPercent":100,"resetsAt":9000}}}}`)
	e := nextOf(t, c, RateLimits, 5*time.Second)
	want := []profile.RateLimit{{Window: "primary", UsedPercent: 40, ResetsAt: 1000}, {Window: "secondary", UsedPercent: 100, ResetsAt: 9000}}
	if !reflect.DeepEqual(e.Limits, want) {
		t.Fatalf("first update: %+v, want %+v", e.Limits, want)
	}
	srv.send(`{"method":"account/rateLimits/updated","params":{"rateLimits":{"primary":{"usedPercent":55,"resetsAt":1000},"secondary":null,"planType":null}}}`)
	e = nextOf(t, c, RateLimits, 5*time.Second)
	want[0].UsedPercent = 55
	if !reflect.DeepEqual(e.Limits, want) {
		t.Fatalf("partial update: %+v, want the secondary window kept: %+v", e.Limits, want)
	}
	srv.send(`{"method":"account/rateLimits/updated","params":{"rateLimits":{"limitId":"other","primary":{"usedPercent":10,"resetsAt":500}}}}`)
	e = nextOf(t, c, RateLimits, 5*time.Second)
	want = append(want, profile.RateLimit{Window: "primary", UsedPercent: 10, ResetsAt: 500})
	if !reflect.DeepEqual(e.Limits, want) {
		t.Fatalf("another quota's update: %+v, want %+v", e.Limits, want)
	}
}
