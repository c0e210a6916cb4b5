package supervisor

import (
	"io"
	"sync"

	"github.com/wardenhq/warden/runner"
)

// terminal is the user's own terminal, attached for `warden wrap`: every
// byte the agent writes goes to it, every keystroke goes to the agent, and
// the agent's window follows its size. warden's own typing and the user's
// never interleave inside one submission (the session's input lock).
type terminal struct {
	in  io.Reader
	out io.Writer

	mu   sync.Mutex
	size runner.Size
}

// Output is where the agent's bytes go.
func (t *terminal) Output() io.Writer { return t.out }

// Size is the terminal's window size.
func (t *terminal) Size() runner.Size {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.size
}

// AttachTerminal makes the team's (single) agent run in the user's terminal.
// Call it before Run.
func (t *Team) AttachTerminal(in io.Reader, out io.Writer, size runner.Size) {
	t.term = &terminal{in: in, out: out, size: size}
	t.deps.Term = t.term
	t.deps.Wrap = true
}

// Resize follows the user's terminal (SIGWINCH): the running agents' ptys
// and their screen readers get the new size.
func (t *Team) Resize(size runner.Size) {
	if t.term == nil {
		return
	}
	t.term.mu.Lock()
	t.term.size = size
	t.term.mu.Unlock()
	for _, a := range t.agents {
		if s := a.Session(); s != nil {
			if err := s.Resize(size); err != nil {
				t.log.Warn("resize failed", "agent", a.Name(), "error", err)
			}
		}
	}
}

// pumpInput copies the user's keystrokes to the current session of the
// first agent until the input ends. Keystrokes that arrive while no session
// runs (a restart, a team checkpoint) are dropped.
func (t *Team) pumpInput() {
	buf := make([]byte, 4096)
	a := t.agents[0]
	for {
		n, err := t.term.in.Read(buf)
		if n > 0 {
			if s := a.Session(); s != nil {
				s.Input(buf[:n])
			}
		}
		if err != nil {
			return
		}
	}
}
