//go:build e2e

package realclis

import (
	"strings"
	"sync"
	"time"

	"github.com/wardenhq/warden/testrig/fakeprovider"
)

// answerScript draws two approval dialogs, one after the other: the first
// prompt's tool call (denied: first.txt never appears), then, at the
// person's message (typed with warden send after the denial), a second one
// (allowed once: second.txt appears). The line warden types after a
// person's deny (issue 34) is answered with words and counted.
type answerScript struct {
	mu    sync.Mutex
	calls int
	notes int         // warden's line after the deny, as the model got it
	asked []time.Time // when each tool call was sent
	at    []time.Time // when each main request reached the model
}

// requestsBetween counts the main requests that reached the model after
// the n-th tool call (1 or 2) was sent and before until.
func (s *answerScript) requestsBetween(n int, until time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.asked) < n {
		return 0
	}
	k := 0
	for _, at := range s.at {
		if at.After(s.asked[n-1]) && at.Before(until) {
			k++
		}
	}
	return k
}

// denyNote is what warden's line after a person's deny says.
const denyNote = "a person denied the action in the dialog above"

func (s *answerScript) notesSeen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notes
}

const (
	firstProbe  = "curl -s http://127.0.0.1:9/first > first.txt"
	secondProbe = "curl -s http://127.0.0.1:9/second > second.txt"
)

func (s *answerScript) decide(req fakeprovider.Request) fakeprovider.Answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.at = append(s.at, time.Now())
	switch {
	case req.Prompt == "":
		return fakeprovider.Answer{Text: "Done."} // a tool's result came back
	case strings.Contains(req.Prompt, denyNote):
		s.notes++
		return fakeprovider.Answer{Text: "Understood: I carry on without that command."}
	case s.calls == 0:
		s.calls++
		s.asked = append(s.asked, time.Now())
		return fakeprovider.Answer{Tool: &fakeprovider.ToolCall{Command: firstProbe, Description: "Fetch the first probe"}}
	case s.calls == 1 && strings.Contains(req.Prompt, "fetch the second probe"):
		s.calls++
		s.asked = append(s.asked, time.Now())
		return fakeprovider.Answer{Tool: &fakeprovider.ToolCall{Command: secondProbe, Description: "Fetch the second probe"}}
	}
	return fakeprovider.Answer{Text: "CHECKPOINT: T1\nStatus: implementing\nCompleted:\n- the probes\nRemaining:\n- nothing\n" +
		"Files Modified: none\nEstimated Progress: 50%\n"}
}
