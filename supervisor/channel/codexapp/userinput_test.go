//go:build !e2e

package codexapp

import (
	"testing"
	"time"
)

// Codex 0.171.0's item/tool/requestUserInput carries its text in
// questions[].question (ToolRequestUserInputQuestion in its schema): the
// waiting event shows the questions, not the method's name.
func TestUserInputRequestShowsItsQuestions(t *testing.T) {
	c, srv := pipeClient(t)
	c.mu.Lock()
	c.thread = "th1"
	c.mu.Unlock()
	srv.send(`{"id":7,"method":"item/tool/requestUserInput","params":{"threadId":"th1","turnId":"tu1","itemId":"i1","isBlocking":true,` +
		`"questions":[{"id":"q1","header":"Deploy","question":"Which environment should I deploy to?"},{"id":"q2","header":"When","question":"Now or tonight?"}]}}`)
	for deadline := time.After(5 * time.Second); ; {
		select {
		case e := <-c.events:
			if e.Kind != Waiting {
				continue
			}
			if e.Text != "Which environment should I deploy to?\nNow or tonight?" || e.Method != "item/tool/requestUserInput" || e.Request != "7" {
				t.Errorf("waiting event %+v; want the questions as its text", e)
			}
			return
		case <-deadline:
			t.Fatal("no waiting event for the request")
		}
	}
}
