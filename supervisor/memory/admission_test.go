//go:build !e2e

package memory

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor/config"
)

// asked is one Acquire running in its own goroutine: its ticket when it is
// admitted, and the waits it was told of.
type asked struct {
	got   chan *Ticket
	mu    sync.Mutex
	waits []Wait
}

func acquire(ad *Admission, agent, profile string, stop <-chan struct{}) *asked {
	q := &asked{got: make(chan *Ticket, 1)}
	go func() {
		t, _ := ad.Acquire(agent, profile, stop, func(w Wait) {
			q.mu.Lock()
			q.waits = append(q.waits, w)
			q.mu.Unlock()
		})
		q.got <- t
	}()
	return q
}

// admitted waits up to 2 s for the ticket.
func (q *asked) admitted(t *testing.T, who string) *Ticket {
	t.Helper()
	select {
	case tk := <-q.got:
		if tk == nil {
			t.Fatalf("%s: refused (stopped)", who)
		}
		return tk
	case <-time.After(2 * time.Second):
		t.Fatalf("%s: not admitted", who)
		return nil
	}
}

// waiting checks that the agent waits (for 50 ms) and was told why once.
func (q *asked) waiting(t *testing.T, who, reason string) {
	t.Helper()
	select {
	case tk := <-q.got:
		t.Fatalf("%s: admitted (%v), want it to wait", who, tk != nil)
	case <-time.After(50 * time.Millisecond):
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waits) != 1 || q.waits[0].Reason != reason {
		t.Fatalf("%s: told %+v, want one wait for %s", who, q.waits, reason)
	}
}

func testAdmission(maxRunning int, floor int64) (*Admission, *clock.Fake) {
	clk := clock.NewFake(time.Unix(1_000_000, 0))
	return NewAdmission(maxRunning, floor, clk, hclog.NewNullLogger()), clk
}

// max_running: the first two start, the third waits — told once, whatever
// happens meanwhile — and starts when one ends; the next two in the order
// they came.
func TestAdmissionMaxRunning(t *testing.T) {
	ad, _ := testAdmission(2, 0)
	a := acquire(ad, "a", "plain", nil).admitted(t, "a")
	acquire(ad, "b", "plain", nil).admitted(t, "b")
	c := acquire(ad, "c", "plain", nil)
	c.waiting(t, "c", WaitMaxRunning)
	d := acquire(ad, "d", "plain", nil)
	d.waiting(t, "d", WaitMaxRunning)
	if w := c.waits[0]; w.Running != 2 || w.MaxRunning != 2 || w.String() != "waits its turn: 2 agents running (max_running 2)" {
		t.Errorf("c's wait: %+v %q", w, w.String())
	}
	if w := d.waits[0]; w.Ahead != 1 {
		t.Errorf("d's wait: %+v, want 1 ahead", w)
	}
	a.Release()
	a.Release() // twice: the slot is freed once
	ct := c.admitted(t, "c (first in line)")
	d.waiting(t, "d", WaitMaxRunning)
	if running, waiting, _ := ad.Counts(); running != 2 || waiting != 1 {
		t.Errorf("counts: %d running, %d waiting", running, waiting)
	}
	ct.Release()
	d.admitted(t, "d")
}

// A stop while an agent waits ends its wait with no ticket, and the next
// in line is not held back by it.
func TestAdmissionStopWhileWaiting(t *testing.T) {
	ad, _ := testAdmission(1, 0)
	a := acquire(ad, "a", "plain", nil).admitted(t, "a")
	stop := make(chan struct{})
	b := acquire(ad, "b", "plain", stop)
	b.waiting(t, "b", WaitMaxRunning)
	c := acquire(ad, "c", "plain", nil)
	c.waiting(t, "c", WaitMaxRunning)
	close(stop)
	select {
	case tk := <-b.got:
		if tk != nil {
			t.Fatal("a stopped wait gave a ticket")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a stopped wait did not end")
	}
	a.Release()
	c.admitted(t, "c")
}

// memory_floor: an agent starts only while MemAvailable stays above the
// floor once its CLI's footprint is taken, counting what the agents just
// started will take still; with nothing running one starts whatever its
// default; footprints are learned from the RSS the watch reads, and a
// waiter starts as memory frees, read again every Poll.
func TestAdmissionMemoryFloor(t *testing.T) {
	const mb = config.MiB
	var avail atomic.Int64
	avail.Store(10_000 * mb)
	ad, clk := testAdmission(0, 10_000*mb-250*mb) // room for 2 of 100 MB
	ad.MemAvailable = func() (int64, error) { return avail.Load(), nil }
	ad.LearnAfter = 10 * time.Second
	ad.Poll = time.Hour // the clock moves only when the test says

	// The default (512 MiB for plain) does not fit the room, but nothing
	// runs: the first starts, to learn from.
	a := acquire(ad, "a", "plain", nil).admitted(t, "a (nothing running)")
	b := acquire(ad, "b", "plain", nil)
	b.waiting(t, "b", WaitMemory)
	if w := b.waits[0]; w.Needed != 512*mb || w.Reserved != 512*mb || w.Available != 10_000*mb {
		t.Errorf("b's wait: needed %d MB, reserved %d MB, available %d MB", w.Needed/mb, w.Reserved/mb, w.Available/mb)
	}
	// a's tree holds 100 MB; the machine shows it. Still the default until
	// a has run LearnAfter.
	avail.Store(9_900 * mb)
	ad.observe(map[*Ticket]int64{a: 100 * mb}, 0, false)
	b.waiting(t, "b", WaitMemory)
	clk.Advance(10 * time.Second) // a is mature: plain's footprint is 100 MB
	ad.observe(map[*Ticket]int64{a: 100 * mb}, 0, false)
	bt := b.admitted(t, "b (the footprint learned)")
	if est, learned := ad.estimateLocked("plain", ad.running, clk.Now()); est != 100*mb || !learned {
		t.Errorf("plain's footprint %d MB, learned %v", est/mb, learned)
	}
	// b has not taken its 100 MB yet: it is reserved, so c waits although
	// MemAvailable alone would let it in.
	c := acquire(ad, "c", "plain", nil)
	c.waiting(t, "c", WaitMemory)
	if w := c.waits[0]; w.Reserved != 100*mb {
		t.Errorf("c's wait reserves %d MB for b, want 100", w.Reserved/mb)
	}
	avail.Store(9_800 * mb)
	ad.observe(map[*Ticket]int64{a: 100 * mb, bt: 100 * mb}, 0, false)
	c.waiting(t, "c", WaitMemory) // 9800 - 100 < 9750
	// a ends: its memory is back, and c starts at the next read.
	a.Release()
	avail.Store(9_900 * mb)
	clk.Advance(ad.Poll)
	c.admitted(t, "c (memory freed, read again after Poll)")
	if fps := ad.footprints(); len(fps) != 1 || fps[0].Bytes != 100*mb || !fps[0].Learned || fps[0].Sessions != 1 {
		t.Errorf("footprints %+v", fps)
	}
}

// A session whose peak grows past the learned footprint raises it at once,
// and the learned figure is the highest of the last Keep sessions.
func TestFootprintFollowsThePeaks(t *testing.T) {
	const mb = config.MiB
	ad, clk := testAdmission(0, 0)
	ad.LearnAfter, ad.Keep = time.Second, 2
	now := func() int64 {
		n, _ := ad.estimateLocked("codex", ad.running, clk.Now())
		return n
	}
	if now() != 1*config.GiB {
		t.Fatalf("codex's default %d MB", now()/mb)
	}
	for _, peak := range []int64{300, 500, 200} {
		tk := acquire(ad, "x", "codex", nil).admitted(t, "x")
		ad.observe(map[*Ticket]int64{tk: peak * mb}, 0, false)
		clk.Advance(time.Second)
		tk.Release()
	}
	if got := now(); got != 500*mb { // the last 2: 500 and 200
		t.Errorf("learned %d MB, want 500", got/mb)
	}
	tk := acquire(ad, "x", "codex", nil).admitted(t, "x")
	ad.observe(map[*Ticket]int64{tk: 900 * mb}, 0, false)
	if got := now(); got != 900*mb {
		t.Errorf("with a session at 900 MB: %d MB", got/mb)
	}
	tk.Release()
	if got := now(); got != 500*mb { // an immature session teaches nothing
		t.Errorf("after it ended unripe: %d MB, want 500", got/mb)
	}
}

// MemAvailable that cannot be read holds nobody back (and is logged).
func TestAdmissionUnreadableMemory(t *testing.T) {
	ad, _ := testAdmission(0, 1)
	ad.MemAvailable = func() (int64, error) { return 0, errFake }
	acquire(ad, "a", "plain", nil).admitted(t, "a")
	acquire(ad, "b", "plain", nil).admitted(t, "b")
}

var errFake = fakeErr("no /proc/meminfo here")

type fakeErr string

func (e fakeErr) Error() string { return string(e) }

func TestProcFields(t *testing.T) {
	n, err := ReadMemAvailable()
	if err != nil || n <= 0 {
		t.Errorf("MemAvailable %d, %v", n, err)
	}
	if _, err := ReadOOMKills(); err != nil {
		t.Errorf("oom_kill: %v", err)
	}
}
