package codexapp

import "strings"

// resumeParams are warden's thread/resume of the TUI's thread. warden
// only subscribes — it reads the thread's notifications and requests
// from then on, never its past turns — so it asks for no history:
// excludeTurns (Codex 0.171.0) returns the thread's metadata and live
// state without thread.turns, where full-history loading is deprecated
// and costs the server a read of the whole rollout under load. A server
// that refused the field is asked without it.
func (c *Client) resumeParams(thread string) map[string]any {
	c.mu.Lock()
	full := c.fullResume
	c.mu.Unlock()
	p := map[string]any{"threadId": thread}
	if !full {
		p["excludeTurns"] = true
	}
	return p
}

// refusesExcludeTurns reports whether a thread/resume's error is the
// server refusing the excludeTurns field (an unknown field to a Codex that
// predates it), not the thread's state ("no rollout found").
func refusesExcludeTurns(err []byte) bool {
	s := string(err)
	return strings.Contains(s, "excludeTurns") || strings.Contains(s, "exclude_turns")
}
