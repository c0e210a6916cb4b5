package profile

import "cmp"

// AppServer is a server a CLI's TUI can attach to, which warden joins as a
// second client to read approvals, turns and limits sooner than the screen
// shows them (Codex's app-server: docs/design-channels.md). The agent
// reads it when its command runs the TUI itself and the installed CLI can
// attach; otherwise its screen alone.
type AppServer struct {
	// Launcher is the warden subcommand run under the agent's pty in place
	// of the CLI: it starts the server and the TUI attached to it
	// (`warden codex-remote --socket S --log F -- TUI…`).
	Launcher string
	// Runs reports whether argv runs the CLI's TUI itself (not a wrapper,
	// a subcommand, or the user's own server).
	Runs func(argv []string) bool
	// CanAttach reports whether the CLI of argv, as installed, can attach
	// its TUI to a server.
	CanAttach func(argv []string) bool
	// Attach is the TUI of tui attached to the server on the unix socket
	// sock.
	Attach func(tui []string, sock string) []string
}

// AppServerOf is the app-server of profile's CLI, nil when it has none.
func AppServerOf(profile string) *AppServer {
	c := lookup(cmp.Or(profile, PlainName))
	if c == nil {
		return nil
	}
	return c.AppServer
}
