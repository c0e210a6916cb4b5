package session

import (
	"context"
	"strings"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
)

// readyTimeout bounds the wait for a CLI's first input prompt; after it the
// first prompt is typed anyway (and Submit verifies it).
const readyTimeout = 60 * time.Second

// typeText queues text for the typist: submitting may pause (a paste, then
// Enter as a write of its own), and the session loop must keep recording
// answers meanwhile.
func (s *Session) typeText(text string) {
	s.typing <- text
}

// typist submits queued texts in order until the session ends; the first
// waits until the CLI is at its input prompt.
func (s *Session) typist(ctx context.Context) {
	first := true
	for text := range s.typing {
		if first {
			s.waitReady(ctx)
			first = false
		}
		s.submit(ctx, text)
	}
}

// waitReady waits until the profile sees the CLI ready for input.
func (s *Session) waitReady(ctx context.Context) {
	deadline := time.Now().Add(readyTimeout)
	for !s.prof.Ready(s.screen()) {
		if time.Now().After(deadline) {
			s.log.Warn("the CLI never showed its input prompt; typing anyway", "waited", readyTimeout)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// screen is the session as the profile sees it.
func (s *Session) screen() profile.Screen {
	return screenView{rows: s.reader.Rows(), bracketed: s.modes.bracketed()}
}

// submit types text the profile's way (bracketed paste, a pause, Enter as a
// write of its own, verified and retried) and tells the reader first, so
// that its echo is never read as an answer and a request starts a new
// epoch when it is typed. The user's keystrokes (warden wrap) wait meanwhile.
func (s *Session) submit(ctx context.Context, text string) {
	s.inputMu.Lock()
	defer s.inputMu.Unlock()
	s.reader.Typed(text)
	if err := s.prof.Submit(ctx, s.proc, s.screen, text); err != nil && ctx.Err() == nil {
		s.log.Warn("submission not confirmed", "error", err, "request", strings.HasPrefix(text, protocol.RequestPrefix))
	}
}
