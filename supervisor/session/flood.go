package session

import (
	"time"

	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/internal/pace"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/event"
)

// The record pace of one session: a burst of recordBurst records, then one
// per recordEvery. No agent answers faster in earnest; a flood of answers
// is recorded at this pace, each record the newest answer.
const (
	recordBurst = 20
	recordEvery = 200 * time.Millisecond
	// floodEvery: while answers are dropped, an answers_dropped event at
	// most this often; the burst ends after this long without drops.
	floodEvery = 5 * time.Second
)

// recordPace is what the loop keeps of the record pace: the bucket, the
// block it holds back until heldUntil, what was dropped and not yet
// reported, the flood report; exiting: the process is gone, what is left
// is recorded without pace.
type recordPace struct {
	bucket    *pace.Bucket
	held      *protocol.Block
	heldUntil time.Time
	drops     drops
	flood     floodReport
	exiting   bool
}

// floodReport tells the user what a flood of answers cost: a WARNING line
// when a burst of drops starts, and answers_dropped events with the counts
// at most every floodEvery while it lasts, the last when it ends. It is a
// plain object over the times it is given.
type floodReport struct {
	inBurst  bool
	pending  drops     // dropped, not yet in an event
	lastDrop time.Time // the burst ends floodEvery after this
	lastSent time.Time
}

// note adds what was dropped at now; it reports whether the burst starts
// (warn) and whether an event is due with the counts it returns.
func (f *floodReport) note(d drops, now time.Time) (warn, emit bool, counts drops) {
	if d.total() == 0 {
		return f.due(now)
	}
	f.pending.add(d)
	f.lastDrop = now
	if !f.inBurst {
		f.inBurst, f.lastSent = true, now
		counts, f.pending = f.pending, drops{}
		return true, true, counts
	}
	if now.Sub(f.lastSent) >= floodEvery {
		f.lastSent = now
		counts, f.pending = f.pending, drops{}
		return false, true, counts
	}
	return false, false, drops{}
}

// due ends a burst that has seen no drops for floodEvery, emitting what is
// left.
func (f *floodReport) due(now time.Time) (warn, emit bool, counts drops) {
	if !f.inBurst || now.Sub(f.lastDrop) < floodEvery {
		return false, false, drops{}
	}
	f.inBurst = false
	counts, f.pending = f.pending, drops{}
	return false, counts.total() > 0, counts
}

// wakeAt is when due has something to do (zero: nothing).
func (f *floodReport) wakeAt() time.Time {
	if !f.inBurst {
		return time.Time{}
	}
	return f.lastDrop.Add(floodEvery)
}

// reportDrops turns what the backlog dropped into the flood report's lines
// and events; at the end of the session (final) whatever is left is emitted.
func (s *Session) reportDrops(d drops, final bool) {
	now := s.cfg.Clock.Now()
	warn, emit, counts := s.pace.flood.note(d, now)
	if final && s.pace.flood.inBurst {
		s.pace.flood.lastDrop = now.Add(-floodEvery)
		_, e2, c2 := s.pace.flood.due(now)
		emit, counts = emit || e2, addDrops(counts, c2)
	}
	if warn {
		s.log.Warn("answers come faster than they can be recorded: keeping the newest", "dropped", d.total(), console.Printed, true)
		s.r.Printf("WARNING: %s sends answers faster than warden records them: only the newest is recorded "+
			"(at most %d a second); what is dropped is counted in answers_dropped events\n", s.cfg.Agent, int(time.Second/recordEvery))
	}
	if emit {
		s.r.Event(event.AnswersDropped, "superseded", counts.blocks, "rejected", counts.rejects, "hooks", counts.hooks)
	}
}

func addDrops(a, b drops) drops {
	a.add(b)
	return a
}

// pacedOut holds block b back when the record pace is spent: it waits as
// the session's held block (a newer answer to the same request replaces
// it) until the pace allows the next record. A held block that b replaces
// is counted as dropped.
func (s *Session) pacedOut(b *protocol.Block) bool {
	if h := s.pace.held; h != nil && h != b {
		s.pace.held = nil
		s.pace.drops.blocks++
	}
	if s.pace.exiting {
		return false
	}
	ok, next := s.pace.bucket.Take(s.cfg.Clock.Now())
	if ok {
		s.pace.held = nil
		return false
	}
	s.pace.held, s.pace.heldUntil = b, next
	return true
}

// work handles events, the held block first, and reports what was dropped;
// it reports whether the task is done.
func (s *Session) work(events []readerEvent) bool {
	if s.pace.held != nil {
		events = append([]readerEvent{{block: s.pace.held}}, events...)
	}
	done := s.handle(events)
	d := s.pace.drops
	s.pace.drops = drops{}
	s.reportDrops(d, false)
	return done
}

// floodWakes are the loop's timers for the held block and for the end of a
// burst of drops (nil: none).
func (s *Session) floodWakes(al *alarms) (paced, flooded <-chan time.Time) {
	if s.pace.held != nil {
		paced = al.at(s.pace.heldUntil)
	}
	if t := s.pace.flood.wakeAt(); !t.IsZero() {
		flooded = al.at(t)
	}
	return paced, flooded
}

// teamStopping reports whether the team stops this session now.
func (s *Session) teamStopping() bool {
	select {
	case <-s.cfg.Team.Stopping():
		return true
	default:
		return false
	}
}
