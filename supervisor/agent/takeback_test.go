//go:build !e2e

package agent

import (
	"testing"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/state"
)

// The answer a session taken back gives first is its last record drawn
// again only when it gives the same: task, status, progress and lists.
func TestSameAnswer(t *testing.T) {
	base := func() *protocol.Checkpoint {
		return &protocol.Checkpoint{TaskID: "T1", Status: "implementing", ProgressPercent: 25,
			Completed: []string{"a"}, Remaining: []string{"b"}, FilesModified: []string{"x.go"}}
	}
	if !sameAnswer(base(), base()) {
		t.Error("the same answer is not the same")
	}
	for name, change := range map[string]func(*protocol.Checkpoint){
		"task":      func(c *protocol.Checkpoint) { c.TaskID = "T2" },
		"status":    func(c *protocol.Checkpoint) { c.Status = "testing" },
		"progress":  func(c *protocol.Checkpoint) { c.ProgressPercent = 30 },
		"completed": func(c *protocol.Checkpoint) { c.Completed = append(c.Completed, "b") },
		"remaining": func(c *protocol.Checkpoint) { c.Remaining = nil },
		"files":     func(c *protocol.Checkpoint) { c.FilesModified = []string{"y.go"} },
	} {
		b := base()
		change(b)
		if sameAnswer(base(), b) {
			t.Errorf("another %s is the same answer", name)
		}
	}
}

// A record saved before its late optional lines came (its warden killed
// before it amended it) is the same answer as the whole block read again
// from the log; a record whose notes or lines differ from the block's is
// another answer.
func TestSameAnswerWithLateLines(t *testing.T) {
	block := &protocol.Checkpoint{TaskID: "T1", Status: "implementing", ProgressPercent: 25,
		Notes: "went well", Extra: map[string]string{"Answer": "42.1", "Resume": "go on"}}
	saved := &protocol.Checkpoint{TaskID: "T1", Status: "implementing", ProgressPercent: 25,
		Extra: map[string]string{"Answer": "42.1"}}
	if !sameAnswer(saved, block) {
		t.Error("a record without its late lines is not the block read again whole")
	}
	other := &protocol.Checkpoint{TaskID: "T1", Status: "implementing", ProgressPercent: 25,
		Extra: map[string]string{"Answer": "42.2"}}
	if sameAnswer(other, block) {
		t.Error("a record with another line of its own is the same answer")
	}
	noted := &protocol.Checkpoint{TaskID: "T1", Status: "implementing", ProgressPercent: 25, Notes: "went badly"}
	if sameAnswer(noted, block) {
		t.Error("a record with other notes is the same answer")
	}
}

// A session being taken back is in state.json as the dead warden left it
// until it attached (or was dropped): a warden killed during the take-back
// leaves the next one the session to take back. Said as the agent
// starting with no pid, it was stopped unread by the next warden, the
// answers in the holder's ring with it (TestRandomKillMoments, seed 36).
func TestASessionBeingTakenBackStaysInTheState(t *testing.T) {
	since := time.Date(2026, 12, 7, 21, 38, 49, 0, time.UTC)
	a := &Agent{cfg: config.Agent{Name: "w1"}, state: state.Starting}
	tb := &TakeBack{Task: "T1", Attempt: 2, SessionID: "097fdc5daf96bae5", Pid: 2108, Since: since, Requested: since.Add(time.Second)}
	a.SetTakeBack(tb)
	s := a.Status()
	if s.State != state.Running || s.Task != "T1" || s.Attempt != 2 || s.Pid != 2108 || s.Session != tb.SessionID ||
		!s.LastCheckpoint.Equal(since) || !s.RequestedAt.Equal(tb.Requested) {
		t.Errorf("while taken back: %+v; want the held session, running", s)
	}
	a.takeBackNow(&config.Task{ID: "T1"}) // its session starts: until it attached, still the held one
	if s := a.Status(); s.Pid != 2108 || s.Session != tb.SessionID {
		t.Errorf("while its session attaches: %+v; want the held session", s)
	}
	a.dropTakeBack()
	if s := a.Status(); s.Pid != 0 || s.Session != "" || s.State != state.Starting {
		t.Errorf("dropped: %+v; want no session", s)
	}
}

// A record this warden made after the take-back, saved before its late
// lines (notes, its own lines) came, is not what every later answer with
// the same progress and lists gives: a TUI at 100 % answers so at every
// request, its notes late (TestRandomKillMoments, seed 36: an answer lost
// as "drawn again"). A record of the dead warden's may lack them.
func TestOnlyTheDeadWardensRecordsLackTheirLateLines(t *testing.T) {
	saved := &protocol.Checkpoint{TaskID: "T3", Status: "implementing", ProgressPercent: 100}
	next := &protocol.Checkpoint{TaskID: "T3", Status: "implementing", ProgressPercent: 100,
		Notes: "answer number 30", Extra: map[string]string{"Answer": "26455.30"}}
	if drawnAgain([]*protocol.Checkpoint{saved}, 0, next) {
		t.Error("this warden's record without its late lines took a later answer for itself drawn again")
	}
	if !drawnAgain([]*protocol.Checkpoint{saved}, 1, next) {
		t.Error("the dead warden's record without its late lines is not the block read again whole")
	}
	if !drawnAgain([]*protocol.Checkpoint{next}, 0, next) {
		t.Error("an answer of this warden's drawn again whole is not drawn again")
	}
}
