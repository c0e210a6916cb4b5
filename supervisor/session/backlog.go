package session

import (
	"context"
	"fmt"
	"sync"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/channel/codexapp"
	"github.com/wardenhq/warden/supervisor/hookbus"
)

// readerEvent is one callback of the protocol reader, or a hook message.
type readerEvent struct {
	settled  bool             // the screen has been quiet: look for a banner and a dialog
	signals  bool             // the program's status report, title or probes changed
	putOff   bool             // the typist put a checkpoint request off
	hook     *hookbus.Message // from the CLI's own hooks
	channel  *codexapp.Event  // from the agent's app-server (channel.go)
	restart  bool             // warden restart
	park     bool             // the account parked or resumed the session (Park, Unpark)
	block    *protocol.Block
	reason   string
	text     string
	complete bool
	synced   chan struct{} // Sync: closed when the loop reaches it
}

// inbox is what the session's other goroutines hand its loop: the reader's
// callbacks and hook messages (a bounded backlog, notify rung), and the
// verdicts of the task's verify, which the agent runs off the loop.
type inbox struct {
	mu       sync.Mutex
	pending  backlog
	notify   chan struct{}
	verdicts chan Verdict
}

// Bounds of a session's backlog: what the reader and the hooks reported and
// the session's loop has not handled yet.
const (
	// maxPendingBlocks: valid blocks waiting; beyond it a new one supersedes
	// the oldest waiting answer to the same task and request (or the oldest).
	maxPendingBlocks = 32
	// maxPendingRejects: rejected blocks waiting; more are dropped.
	maxPendingRejects = 8
	// maxPendingHooks: hook messages waiting; more drop the oldest.
	maxPendingHooks = 64
	// maxPendingChannel: messages of the app-server waiting; more drop
	// the oldest.
	maxPendingChannel = 256
)

// backlog holds the events for the session's loop, bounded however fast
// an agent prints: at most maxPendingBlocks blocks (when it is full, a new
// answer supersedes the oldest waiting one to the same task and request
// epoch — a checkpoint supersedes the ones before it), a few rejections,
// the newest hook messages, and each kind of flag once. In normal use it
// never fills: two answers read at once are both handed on. What it drops
// it counts.
type backlog struct {
	events  []readerEvent
	dropped drops
}

// drops counts what a backlog dropped.
type drops struct {
	blocks  int // superseded by a newer answer to the same request
	rejects int
	hooks   int
}

func (d drops) total() int { return d.blocks + d.rejects + d.hooks }

func (d *drops) add(o drops) {
	d.blocks += o.blocks
	d.rejects += o.rejects
	d.hooks += o.hooks
}

// push adds e, dropping what it supersedes or what does not fit.
func (q *backlog) push(e readerEvent) {
	switch {
	case e.block != nil:
		if q.count(isBlock) >= maxPendingBlocks {
			i := q.find(func(o readerEvent) bool {
				return isBlock(o) && o.block.Task == e.block.Task && o.block.Epoch == e.block.Epoch
			})
			if i < 0 {
				i = q.find(isBlock)
			}
			q.remove(i)
			q.dropped.blocks++
		}
	case e.hook != nil:
		if q.count(func(o readerEvent) bool { return o.hook != nil }) >= maxPendingHooks {
			q.remove(q.find(func(o readerEvent) bool { return o.hook != nil }))
			q.dropped.hooks++
		}
	case e.channel != nil:
		if q.count(func(o readerEvent) bool { return o.channel != nil }) >= maxPendingChannel {
			q.remove(q.find(func(o readerEvent) bool { return o.channel != nil }))
			q.dropped.hooks++
		}
	case e.synced != nil:
	case e.settled || e.signals || e.putOff || e.complete || e.restart || e.park:
		if q.find(func(o readerEvent) bool { return sameFlags(o, e) }) >= 0 {
			return // one is enough: they ask for a look, not a count
		}
	default: // a rejected block
		if q.count(isReject) >= maxPendingRejects {
			q.dropped.rejects++
			return
		}
	}
	q.events = append(q.events, e)
}

// take returns the events in order and what was dropped since the last take.
func (q *backlog) take() ([]readerEvent, drops) {
	ev, d := q.events, q.dropped
	q.events, q.dropped = nil, drops{}
	return ev, d
}

// len is how many events wait.
func (q *backlog) len() int { return len(q.events) }

func (q *backlog) find(match func(readerEvent) bool) int {
	for i, o := range q.events {
		if match(o) {
			return i
		}
	}
	return -1
}

func (q *backlog) count(match func(readerEvent) bool) int {
	n := 0
	for _, o := range q.events {
		if match(o) {
			n++
		}
	}
	return n
}

func (q *backlog) remove(i int) {
	q.events = append(q.events[:i], q.events[i+1:]...)
}

func isBlock(e readerEvent) bool { return e.block != nil }

func isReject(e readerEvent) bool {
	return e.block == nil && e.hook == nil && e.synced == nil && !e.settled && !e.signals && !e.putOff && !e.complete && !e.restart && !e.park
}

func sameFlags(a, b readerEvent) bool {
	return a.block == nil && a.hook == nil && a.channel == nil && b.block == nil && b.hook == nil && b.channel == nil &&
		a.settled == b.settled && a.signals == b.signals && a.putOff == b.putOff && a.complete == b.complete &&
		a.restart == b.restart && a.park == b.park
}

// push hands e to the loop, through the bounded backlog.
func (s *Session) push(e readerEvent) {
	s.inbox.mu.Lock()
	s.inbox.pending.push(e)
	s.inbox.mu.Unlock()
	select {
	case s.inbox.notify <- struct{}{}:
	default:
	}
}

// take returns what waits for the loop; what the backlog dropped is added
// to the drops to report.
func (s *Session) take() []readerEvent {
	s.inbox.mu.Lock()
	ev, d := s.inbox.pending.take()
	s.inbox.mu.Unlock()
	s.pace.drops.add(d)
	return ev
}

// Sync returns once the session's loop has handled everything its reader
// handed it before the call (an answer read is recorded), or when ctx
// ends. `warden upgrade` calls it once the reader is paused
// (runner.Process.Pause): nothing read is left unhandled when the process
// is replaced.
func (s *Session) Sync(ctx context.Context) error {
	ch := make(chan struct{})
	s.push(readerEvent{synced: ch})
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("session pid %d: what its reader read not all handled: %w", s.Pid(), ctx.Err())
	}
}
