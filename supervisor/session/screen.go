package session

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
)

// plainSettle is how long a plain agent's output must be quiet before the
// reader takes a block whose last line has arrived: lines are never
// repainted, so a few milliseconds suffice (detection latency, docs/performance.md).
const plainSettle = 5 * time.Millisecond

// profileFor returns the agent's profile (protocol/profile), tuned for the
// supervisor, its submit timed by clk. The team file was validated, so the
// name is known.
func profileFor(name string, logger hclog.Logger, clk clock.Clock) *profile.Profile {
	p, err := profile.For(name)
	if err != nil {
		p, _ = profile.For("plain")
	}
	p.Clock = clk
	if p.Mode == protocol.ModeLines {
		p.Settle = plainSettle
	}
	return p.WithLogger(logger)
}

// turnQuiet is the output silence after which the monitor may type a
// request: the plain profile's TurnQuiet; a TUI's settle time, after which
// the screen itself must show the turn ended.
func turnQuiet(p *profile.Profile) time.Duration {
	if p.Mode == protocol.ModeLines {
		return p.TurnQuiet
	}
	return p.Settle
}

// screenView is what the profile sees of a session: the reader's visible
// rows and whether the agent enabled bracketed paste.
type screenView struct {
	rows      []string
	bracketed bool
	waiting   bool   // another channel says a dialog waits (profile.Waiter)
	drawn     uint64 // the output read when it was taken (profile.Drawer)
}

func (v screenView) Rows() []string  { return v.rows }
func (v screenView) Bracketed() bool { return v.bracketed }
func (v screenView) Waiting() bool   { return v.waiting }
func (v screenView) Drawn() uint64   { return v.drawn }

// modes follows the agent's terminal modes (bracketed paste) in its raw
// output, safely for the reader and the typist goroutines.
type modes struct {
	mu sync.Mutex
	t  profile.ModeTracker
	// replied counts the OSC 7501 probes answered (answerProbe).
	replied atomic.Int32
}

// Write feeds raw output; it reports whether the program's status report,
// title or probe count changed.
func (m *modes) Write(p []byte) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, title, probes := m.t.Status(), m.t.Title(), m.t.Probes()
	m.t.Write(p)
	return st != m.t.Status() || title != m.t.Title() || probes != m.t.Probes()
}

func (m *modes) bracketed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.t.Bracketed()
}

// signals is what the program said about itself: its last program-status
// report, its title and how many OSC 7501 probes it sent.
func (m *modes) signals() (profile.ProgramStatus, string, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.t.Status(), m.t.Title(), m.t.Probes()
}

// settler calls fn once output has been quiet for d on clk: the reader then
// parses what a person would see. One timer per session, re-armed only when
// it fires early, so a flood of output costs an atomic store per chunk.
// With max set, fn also runs once output has gone on without a pause of d
// for max (a CLI that animates a row while it waits: OpenCode's retry
// line), so that the screen is still read.
type settler struct {
	d, max  time.Duration
	fn      func()
	clk     clock.Clock
	last    atomic.Int64
	armed   atomic.Bool
	armedAt time.Time // when armed (under mu)
	timer   clock.Timer
	mu      sync.Mutex
}

func newSettler(d, max time.Duration, clk clock.Clock, fn func()) *settler {
	return &settler{d: d, max: max, clk: clk, fn: fn}
}

func (st *settler) poke() {
	st.last.Store(st.clk.Now().UnixNano())
	if st.armed.CompareAndSwap(false, true) {
		st.mu.Lock()
		st.armedAt = st.clk.Now()
		st.timer = st.clk.AfterFunc(st.d, st.fire)
		st.mu.Unlock()
	}
}

func (st *settler) fire() {
	if since := clock.Since(st.clk, time.Unix(0, st.last.Load())); since < st.d {
		st.mu.Lock()
		overdue := st.max > 0 && clock.Since(st.clk, st.armedAt) >= st.max
		if !overdue {
			st.timer.Reset(st.d - since)
		}
		st.mu.Unlock()
		if !overdue {
			return
		}
	}
	st.armed.Store(false)
	st.fn()
}

func (st *settler) stop() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.timer != nil {
		st.timer.Stop()
	}
}
