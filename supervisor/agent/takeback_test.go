//go:build !e2e

package agent

import (
	"testing"

	"github.com/wardenhq/warden/protocol"
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
