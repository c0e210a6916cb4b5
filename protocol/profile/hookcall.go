package profile

// HookCall is how `warden hook KIND [ARG…]` takes a message of a kind whose
// payload is not just JSON on stdin, or whose CLI reads something back. A
// CLI names its own in CLI.Calls; the zero HookCall reads stdin, sends the
// payload and prints nothing.
type HookCall struct {
	// ArgPayload: the payload is the last argument, not stdin; the
	// arguments before it are the user's own program, which `warden hook`
	// starts, detached, with the same last argument (Codex's notify).
	ArgPayload bool
	// StatusLine reads the context gauge from the payload: `warden hook`
	// prints "warden: N% context" on stdout, after the first line of the
	// user's own status line command, its first argument, run on the same
	// payload (Claude Code's statusLine).
	StatusLine func(payload []byte) (percent float64, ok bool)
	// Then returns one more message to send after the payload, found in
	// the CLI's own files with the hook's environment (getenv); kind "":
	// none. It returns within a few hundred milliseconds (Codex: the
	// session's newest token_count, from its rollout file).
	Then func(payload []byte, getenv func(string) string) (kind string, then []byte, err error)
}

// HookCallOf returns how `warden hook` takes a message of kind; known is
// false for a kind no CLI sends.
func HookCallOf(kind string) (call HookCall, known bool) {
	c := owner(kind)
	if c == nil {
		return HookCall{}, false
	}
	return c.Calls[kind], true
}
