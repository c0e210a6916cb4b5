//go:build !e2e

package session

import "testing"

// warden restart's request reaches the loop however many rejected blocks
// fill the backlog, and is neither counted nor reported as a dropped
// rejection; asked twice before the loop looks, it is one request.
func TestBacklogKeepsARestartBehindAFloodOfRejects(t *testing.T) {
	var q backlog
	for i := 0; i < 100; i++ {
		q.push(readerEvent{reason: "bad", text: "x"})
	}
	q.push(readerEvent{restart: true})
	q.push(readerEvent{restart: true})
	ev, d := q.take()
	restarts := 0
	for _, e := range ev {
		if e.restart {
			restarts++
		}
	}
	if restarts != 1 {
		t.Errorf("%d restart requests handed to the loop, want 1", restarts)
	}
	if d.rejects != 100-maxPendingRejects {
		t.Errorf("%d rejections dropped, want %d (the restart is none of them)", d.rejects, 100-maxPendingRejects)
	}
}
