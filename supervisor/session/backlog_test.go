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

// A flood of answers leaves one block per task and request epoch, the
// newest, and counts the rest as superseded.
func TestBacklogKeepsTheNewestAnswerPerRequest(t *testing.T) {
	var q backlog
	for i := 1; i <= 100_000; i++ {
		q.push(blockEvent("T1", 1, i))
	}
	q.push(blockEvent("T1", 2, 7))
	q.push(blockEvent("T2", 2, 9))
	q.push(blockEvent("T1", 2, 8))
	ev, d := q.take()
	var got []string
	for _, e := range ev {
		got = append(got, e.block.Task+"/"+strconv.Itoa(e.block.Epoch)+"/"+strconv.Itoa(e.block.Progress))
	}
	want := []string{"T1/1/100000", "T2/2/9", "T1/2/8"}
	if len(got) != len(want) {
		t.Fatalf("backlog %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("backlog %v, want %v", got, want)
		}
	}
	if d.blocks != 99_999+1 || d.rejects != 0 || d.hooks != 0 {
		t.Errorf("drops %+v, want 100000 superseded blocks", d)
	}
	if ev, d := q.take(); len(ev) != 0 || d.total() != 0 {
		t.Errorf("a second take: %d events, drops %+v; want nothing", len(ev), d)
	}
}

// An amendment replacing an answer that was never recorded is an answer of
// its own, not an amendment.
func TestBacklogAmendmentOfADroppedAnswerIsAnAnswer(t *testing.T) {
	var q backlog
	q.push(blockEvent("T1", 1, 40))
	late := blockEvent("T1", 1, 40)
	late.block.Amends = true
	q.push(late)
	ev, _ := q.take()
	if len(ev) != 1 || ev[0].block.Amends {
		t.Fatalf("%d events, amends %v: want the completed answer, recorded as an answer", len(ev), ev[0].block.Amends)
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
