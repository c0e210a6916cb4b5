package session

import (
	"context"
	"errors"
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
		for {
			if !s.waitNoDialog(ctx) {
				return
			}
			if !s.submit(ctx, text) {
				break
			}
			// A dialog came first: the text waits until it is gone.
			s.waitDialogSeen(ctx, 2*time.Second)
		}
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

// waitNoDialog holds the typist while the agent waits on a dialog: warden
// never types into one. It returns false when ctx ends first.
func (s *Session) waitNoDialog(ctx context.Context) bool {
	for s.waitingFlag.Load() {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
	return ctx.Err() == nil
}

// screen is the session as the profile sees it.
func (s *Session) screen() profile.Screen {
	return screenView{rows: s.reader.Rows(), bracketed: s.modes.bracketed()}
}

// waitDialogSeen waits up to d for the loop to see a dialog the typist met.
func (s *Session) waitDialogSeen(ctx context.Context, d time.Duration) {
	deadline := time.Now().Add(d)
	for !s.waitingFlag.Load() && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
	}
}

// submit types text the profile's way (bracketed paste, a pause, Enter as a
// write of its own, verified and retried) and tells the reader first, so
// that its echo is never read as an answer and a request starts a new
// epoch when it is typed. The user's keystrokes (warden wrap) wait meanwhile.
// It reports whether a dialog on the screen refused the text (nothing typed).
func (s *Session) submit(ctx context.Context, text string) (dialog bool) {
	s.inputMu.Lock()
	defer s.inputMu.Unlock()
	s.reader.Typed(text)
	err := s.prof.Submit(ctx, s.proc, s.screen, text)
	switch {
	case errors.Is(err, profile.ErrDialog):
		s.log.Warn("nothing typed: a dialog waits for a choice", "request", strings.HasPrefix(text, protocol.RequestPrefix))
		s.push(readerEvent{settled: true}) // the loop reads the dialog now
		return true
	case err != nil && ctx.Err() == nil:
		s.log.Warn("submission not confirmed", "error", err, "request", strings.HasPrefix(text, protocol.RequestPrefix))
	}
	return false
}
