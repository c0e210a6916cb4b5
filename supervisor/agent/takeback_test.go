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
