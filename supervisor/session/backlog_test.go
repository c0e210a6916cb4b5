//go:build !e2e

package session

import (
	"strconv"
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/hookbus"
)

func blockEvent(task string, epoch, step int) readerEvent {
	return readerEvent{block: &protocol.Block{Task: task, Epoch: epoch, Progress: step}}
}

// Answers read together are all handed on; a flood of answers fills the
// backlog to maxPendingBlocks and no further: the newest answers stay, the
// superseded ones are counted.
func TestBacklogKeepsTheNewestAnswers(t *testing.T) {
	var q backlog
	q.push(blockEvent("T1", 1, 50))
	q.push(blockEvent("T1", 1, 60))
	if ev, d := q.take(); len(ev) != 2 || d.total() != 0 {
		t.Fatalf("two answers at once: %d handed on, drops %+v; want both, none dropped", len(ev), d)
	}
	for i := 1; i <= 100_000; i++ {
		q.push(blockEvent("T1", 1, i))
	}
	q.push(blockEvent("T2", 2, 7))
	ev, d := q.take()
	if len(ev) != maxPendingBlocks || d.blocks != 100_000+1-maxPendingBlocks || d.rejects+d.hooks != 0 {
		t.Fatalf("%d blocks wait, drops %+v; want %d, %d superseded", len(ev), d, maxPendingBlocks, 100_000+1-maxPendingBlocks)
	}
	want := 100_000 - maxPendingBlocks + 2 // the oldest waiting answer to T1's request went
	for i, e := range ev[:len(ev)-1] {
		if e.block.Task != "T1" || e.block.Progress != want+i {
			t.Fatalf("block %d: %s/%d, want T1/%d", i, e.block.Task, e.block.Progress, want+i)
		}
	}
	if last := ev[len(ev)-1].block; last.Task != "T2" {
		t.Errorf("the newest answer, to T2, was dropped: last is %s/%d", last.Task, last.Progress)
	}
	if ev, d := q.take(); len(ev) != 0 || d.total() != 0 {
		t.Errorf("a second take: %d events, drops %+v; want nothing", len(ev), d)
	}
}

func TestBacklogBoundsRejectsHooksAndFlags(t *testing.T) {
	var q backlog
	for i := 0; i < 1000; i++ {
		q.push(readerEvent{reason: "bad", text: "x"})
		q.push(readerEvent{hook: &hookbus.Message{Agent: strconv.Itoa(i)}})
		q.push(readerEvent{settled: true})
		q.push(readerEvent{signals: true})
	}
	if n := q.len(); n != maxPendingRejects+maxPendingHooks+2 {
		t.Errorf("%d events wait, want %d", n, maxPendingRejects+maxPendingHooks+2)
	}
	ev, d := q.take()
	if d.rejects != 1000-maxPendingRejects || d.hooks != 1000-maxPendingHooks || d.blocks != 0 {
		t.Errorf("drops %+v", d)
	}
	var lastHook string
	for _, e := range ev {
		if e.hook != nil {
			lastHook = e.hook.Agent
		}
	}
	if lastHook != "999" {
		t.Errorf("the newest hook message kept is %q, want 999 (the oldest go)", lastHook)
	}
}

// The flood report warns once when a burst starts, emits the counts at
// most every floodEvery, and the rest when the burst ends.
func TestFloodReportOncePerBurst(t *testing.T) {
	var f floodReport
	t0 := time.Unix(1000, 0)
	warn, emit, c := f.note(drops{blocks: 3}, t0)
	if !warn || !emit || c.blocks != 3 {
		t.Fatalf("first drops: warn %v emit %v counts %+v; want a warning and an event of 3", warn, emit, c)
	}
	total := 3
	for i := 1; i <= 100; i++ { // 10 s of drops every 100 ms
		warn, emit, c = f.note(drops{blocks: 1}, t0.Add(time.Duration(i)*100*time.Millisecond))
		if warn {
			t.Fatalf("a second warning at +%dms", i*100)
		}
		total += c.blocks
	}
	if total != 3+100-f.pending.blocks {
		t.Fatalf("emitted %d, pending %d: counts lost", total, f.pending.blocks)
	}
	end := f.wakeAt()
	if want := t0.Add(10*time.Second + floodEvery); !end.Equal(want) {
		t.Fatalf("burst ends at %v, want %v", end.Sub(t0), want.Sub(t0))
	}
	if _, emit, _ := f.due(end.Add(-time.Millisecond)); emit {
		t.Fatal("the burst ended early")
	}
	_, emit, c = f.due(end)
	total += c.blocks
	if total != 103 || !f.wakeAt().IsZero() {
		t.Fatalf("after the burst: %d counted, want 103; wake %v", total, f.wakeAt())
	}
	if warn, _, _ := f.note(drops{hooks: 1}, end.Add(time.Minute)); !warn {
		t.Error("a new burst after a quiet spell: no warning")
	}
}

// An amendment completes the session's latest record only when it carries
// that record's required lines; one whose answer was dropped in a flood is
// an answer of its own.
func TestAmendmentOnlyOfTheLatestRecord(t *testing.T) {
	rec := protocol.Block{Task: "T1", Status: "implementing", Progress: 40, Completed: []string{"a"}, Remaining: []string{"b"}}
	s := &Session{}
	late := rec
	late.Blockers, late.Amends = []string{"c"}, true
	if s.amends(late) {
		t.Fatal("an amendment with no record yet")
	}
	s.latest.cp, s.latest.block = &protocol.Checkpoint{TaskID: "T1"}, rec
	if !s.amends(late) {
		t.Fatal("the latest record's late lines are not an amendment")
	}
	other := late
	other.Progress = 50 // the answer that was dropped
	if s.amends(other) {
		t.Fatal("late lines of a dropped answer amend another record")
	}
}
