package session

import (
	"context"
	"fmt"
)

// Sync returns once the session's loop has handled everything its reader
// handed it before the call (an answer read is recorded), or when ctx
// ends. `warden upgrade` calls it once the reader is paused
// (runner.Process.Pause): nothing read is left unhandled when the process
// is replaced.
func (s *Session) Sync(ctx context.Context) error {
	ch := make(chan struct{})
	s.push(readerEvent{synced: ch})
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("session pid %d: what its reader read not all handled: %w", s.Pid(), ctx.Err())
	}
}
