//go:build e2e

package notify

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor/config"
)

// A receiver that never answers costs the team nothing: Notify returns at
// once however many events come, a command rule beside it runs as ever,
// and Close ends the hanging POST.
func TestHangingReceiverCostsNothing(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(hang)
	dir := t.TempDir()
	hanging := urlRule([]string{"*"}, srv.URL, config.NotifyNtfy)
	hanging.MinInterval = 0
	h := newHarness(t, []config.Notify{
		hanging,
		rule([]string{"agent_failed"}, helperCommand(t, "stamp", dir)),
	}, clock.Real{}, 2, 16)
	start := time.Now()
	for range 500 {
		h.n.Notify(event("agent_started", "w1", "T1"))
	}
	h.n.Notify(event("agent_failed", "w1", "T2"))
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("501 Notify calls took %s with a receiver that hangs", d)
	}
	if r := h.next(t); r.err != nil || r.ev.Name != "agent_failed" {
		t.Errorf("the command beside the hanging url: %+v", r)
	}
	if s := h.n.Stats(); s.Dropped == 0 {
		t.Errorf("stats %+v: the hanging rule's queue should have overflowed", s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	closed := time.Now()
	_ = h.n.Close(ctx) // gives up on the hanging POST
	if d := time.Since(closed); d > 2*time.Second {
		t.Errorf("Close took %s", d)
	}
}
