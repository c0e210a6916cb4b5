// Package face holds the contracts between an agent's running session and
// the team's edges that show it to people — the control socket (warden
// attach, send) and the page behind it: a viewer of the agent's terminal,
// why its stream ended, and what became of a text a person sent. The
// session implements them; supervisor/control and supervisor/webpage
// import this leaf, never the session (TestEdgesDoNotImportTheSession).
package face

// Viewer is one person's view of an agent's terminal: Opening, then every
// chunk of output from C, until the viewer detaches, falls behind or the
// session ends.
type Viewer interface {
	// Opening is the screen as it was when the viewer attached.
	Opening() Opening
	// C delivers the output, chunk by chunk; it is closed when the stream
	// ends (End says why). Hand every chunk received to Taken.
	C() <-chan []byte
	// Taken accounts for a chunk received from C: it no longer counts
	// against the viewer's backlog.
	Taken(chunk []byte)
	// End says why the stream ended (End*; "" while it runs).
	End() string
	// Close detaches the viewer.
	Close()
}

// Opening is what a viewer draws first.
type Opening struct {
	// Screen draws the screen as it was when the viewer attached: the
	// emulator's rendering (TUIs) or the last lines (plain agents).
	Screen string
	// Alt: the program is on the alternate screen.
	Alt bool
	// Rows and Cols are the agent's terminal size.
	Rows, Cols int
}

// Why a viewer's stream ended (the why of viewer_detached).
const (
	EndDetached = "detached" // the viewer left
	EndSlow     = "slow"     // it fell behind and was dropped: the agent never waits for a viewer
	EndSession  = "ended"    // the session ended
)

// What became of a text a person sent (warden send).
const (
	Submitted         = "submitted"           // the CLI took it: a turn started, or the input box emptied
	TypedNotSubmitted = "typed_not_submitted" // typed, but no turn started (it may sit in the input box)
	Refused           = "refused"             // nothing typed
)

// SendResult is what became of a text, and why.
type SendResult struct {
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
}
