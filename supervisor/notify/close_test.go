//go:build e2e

package notify

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor/config"
)

// TestCloseKillsRunning: Close waits for a running command until its
// context ends, then kills its group and drops what is still queued.
func TestCloseKillsRunning(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	r := rule([]string{"agent_stalled"}, []string{"sh", "-c", hangScript, pidFile})
	r.Timeout, r.MinInterval = time.Hour, 0
	h := newHarness(t, []config.Notify{r}, clock.Real{}, 1, 8)
	h.n.Notify(event("agent_stalled", "w1", "T1"))
	leader, grandchild := hangPids(t, pidFile)
	h.n.Notify(event("agent_stalled", "w1", "T2")) // queued behind T1
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := h.n.Close(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close = %v, want the deadline", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("Close took %s", took)
	}
	if res := h.next(t); !res.aborted || res.ev.Task != "T1" {
		t.Errorf("run %s: aborted %v", res.ev.Task, res.aborted)
	}
	if !gone(leader, grandchild) {
		t.Errorf("group %d or grandchild %d still there", leader, grandchild)
	}
	if s := h.n.Stats(); s.Started != 1 || s.Dropped != 1 {
		t.Errorf("stats = %+v, want 1 started, 1 dropped", s)
	}
	h.n.Notify(event("agent_stalled", "w1", "T3")) // after Close: nothing
	if s := h.n.Stats(); s.Started != 1 || s.Dropped != 1 {
		t.Errorf("stats after a late Notify = %+v", s)
	}
}

// TestCloseRunsQueued: what is queued at Close still runs when there is
// time (team_done comes right before Close).
func TestCloseRunsQueued(t *testing.T) {
	dir := t.TempDir()
	r := rule([]string{"team_done"}, helperCommand(t, "record", dir))
	r.MinInterval = 0
	h := newHarness(t, []config.Notify{r}, clock.Real{}, 1, 8)
	for i := range 3 {
		h.n.Notify(event("team_done", "", "D"+strconv.Itoa(i)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.n.Close(ctx); err != nil {
		t.Fatalf("Close = %v", err)
	}
	for i := range 3 {
		readRecord(t, dir, "D"+strconv.Itoa(i))
	}
	if s := h.n.Stats(); s.Started != 3 || s.Failed != 0 || s.Dropped != 0 {
		t.Errorf("stats = %+v", s)
	}
}

// TestQueueFullNeverBlocks: with the worker busy and the queue full,
// Notify returns at once, counts the drop, logs once per burst, and the next
// run of that key carries the drops.
func TestQueueFullNeverBlocks(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	clk := clock.NewFake(t0)
	hang := rule([]string{"agent_stalled"}, []string{"sh", "-c", hangScript, pidFile})
	hang.MinInterval = 0
	rec := rule([]string{"agent_waiting"}, helperCommand(t, "record", dir))
	rec.MinInterval = 0
	h := newHarness(t, []config.Notify{hang, rec}, clk, 1, 2)
	h.n.Notify(event("agent_stalled", "w1", "H")) // occupies the one worker
	hangPids(t, pidFile)
	h.n.Notify(event("agent_waiting", "w1", "Q1"))
	h.n.Notify(event("agent_waiting", "w1", "Q2")) // the queue is full now
	start := time.Now()
	for i := range 50 {
		h.n.Notify(event("agent_waiting", "w1", "X"+strconv.Itoa(i)))
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("50 Notify calls on a full queue took %s", took)
	}
	if s := h.n.Stats(); s.Dropped != 50 {
		t.Errorf("stats = %+v, want 50 dropped", s)
	}
	if n := strings.Count(h.log.String(), "notify queue full"); n != 1 {
		t.Errorf("queue full logged %d times, want once a burst", n)
	}
	for clk.Waiters() == 0 {
		time.Sleep(time.Millisecond)
	}
	clk.Advance(hang.Timeout) // frees the worker: Q1, Q2 run
	got := map[string]bool{}
	for range 3 {
		got[h.next(t).ev.Task] = true
	}
	if !got["H"] || !got["Q1"] || !got["Q2"] {
		t.Fatalf("runs = %v", got)
	}
	h.n.Notify(event("agent_waiting", "w1", "Q3"))
	if res := h.next(t); res.ev.Task != "Q3" || res.suppressed != 50 {
		t.Errorf("run %s carries %d, want Q3 carrying the 50 dropped", res.ev.Task, res.suppressed)
	}
	if !strings.Contains(h.log.String(), "notify queue drained: dropped=50") {
		t.Errorf("burst end not logged:\n%s", h.log)
	}
}
