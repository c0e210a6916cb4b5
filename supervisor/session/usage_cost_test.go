//go:build !e2e

package session

import (
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/hookbus"
	"github.com/wardenhq/warden/supervisor/usage"
)

// spendReporter keeps the figures a session hands over.
type spendReporter struct {
	quietReporter
	mu   sync.Mutex
	figs []protocol.Usage
}

func (r *spendReporter) Usage(u protocol.Usage, final bool) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.figs = append(r.figs, u)
	return ""
}

func (r *spendReporter) Prices() usage.Prices { return nil }

// A CLI whose status line gives its price and names no token file (a
// wrapper's, or one that reports no transcript) still spends: its price
// reaches the budgets, between records too. Before, the price was kept
// and never handed over, so max_cost never applied to it (the
// simulation's nights with a budget never reached it).
func TestAPriceWithoutATokenFileIsSpent(t *testing.T) {
	fc := clock.NewFake(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	r := &spendReporter{}
	s := New(hclog.NewNullLogger(), Config{Agent: "w", Profile: "plain", Clock: fc, Report: r, Team: newTestTeam(),
		Task: &config.Task{ID: "T1"}, Timers: benchTimers})
	defer close(s.ended) // the usage poller's end
	s.onHook(hookbus.Message{Agent: "w", Kind: profile.KindClaudeStatus, Payload: []byte(`{"cost":{"total_cost_usd":1.25}}`)})
	if !s.use.polling.Load() {
		t.Error("the price started no poll: the budgets see it only at the next record")
	}
	s.use.due.Store(true) // the poller's ring
	s.usageTick()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.figs) != 1 || r.figs[0].CostUSD == nil || *r.figs[0].CostUSD != 1.25 {
		t.Fatalf("figures handed over: %+v, want one of $1.25", r.figs)
	}
}
