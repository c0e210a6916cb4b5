package notify

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/internal/proctest"
	"github.com/wardenhq/warden/supervisor/config"
)

// syncBuffer is a log destination that tests read while workers write.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// harness is a notifier under test with its results and its log.
type harness struct {
	n       *Notifier
	results chan result
	log     *syncBuffer
}

// newHarness starts a notifier; at the end of the test it is closed and
// every process it started must be gone.
func newHarness(t testing.TB, rules []config.Notify, clk clock.Clock, workers, queue int) *harness {
	t.Helper()
	h := &harness{results: make(chan result, 1000), log: &syncBuffer{}}
	logger := hclog.New(&hclog.LoggerOptions{Name: "test", Level: hclog.Debug, Output: h.log})
	h.n = newNotifier(logger, "night", rules, clk, workers, queue)
	h.n.mu.Lock()
	h.n.afterRun = func(r result) { h.results <- r }
	h.n.mu.Unlock()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.n.Close(ctx); err != nil {
			t.Errorf("Close at cleanup: %v", err)
		}
		proctest.AssertNone(t)
	})
	return h
}

// next waits for the next run's result.
func (h *harness) next(t testing.TB) result {
	t.Helper()
	select {
	case r := <-h.results:
		return r
	case <-time.After(10 * time.Second):
		t.Fatalf("no notify run finished within 10s; log:\n%s", h.log)
		return result{}
	}
}

// none checks that no further run finishes within a short while.
func (h *harness) none(t testing.TB) {
	t.Helper()
	select {
	case r := <-h.results:
		t.Fatalf("unexpected run for %s/%s (suppressed %d)", r.ev.Name, r.ev.Agent, r.suppressed)
	case <-time.After(100 * time.Millisecond):
	}
}

// event builds an Event with the JSON line the supervisor would write.
func event(name, agent, task string) Event {
	line := fmt.Sprintf(`{"agent":%q,"event":%q,"task":%q,"ts":"2026-05-03T22:15:00Z"}`, agent, name, task)
	return Event{Name: name, Agent: agent, Task: task, JSON: []byte(line + "\n")}
}

// rule is a [[notify]] rule with the decoder's defaults.
func rule(events []string, command []string) config.Notify {
	r := config.NotifyDefaults()
	r.Events, r.Command = events, command
	r.Pos = config.Position{File: "team.toml", Line: 12, Col: 1}
	return r
}

var t0 = time.Date(2026, 5, 3, 22, 15, 0, 0, time.UTC)

func urlRule(events []string, url, format string) config.Notify {
	r := config.NotifyDefaults()
	r.Events, r.URL, r.Format = events, url, format
	r.Pos = config.Position{File: "team.toml", Line: 20, Col: 1}
	return r
}
