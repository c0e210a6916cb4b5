package supervisor

import (
	"io"
	"sync"

	"github.com/wardenhq/warden/runner"
)

// terminal is the user's own terminal, attached for `warden wrap`: every
// byte the agent writes goes to it, every keystroke goes to the agent, and
// the agent's window follows its size. warden's own typing and the user's
// never interleave inside one submission (the agent's input lock).
type terminal struct {
	in  io.Reader
	out io.Writer

	mu   sync.Mutex
	size runner.Size
}

// AttachTerminal makes the team's (single) agent run in the user's terminal.
// Call it before Run.
func (t *Team) AttachTerminal(in io.Reader, out io.Writer, size runner.Size) {
	t.term = &terminal{in: in, out: out, size: size}
	t.wrap = true
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
		if s := a.currentSession(); s != nil {
			if err := s.proc.Resize(size); err != nil {
				a.log.Warn("resize failed", "error", err)
			}
			s.reader.Resize(int(size.Rows), int(size.Cols))
		}
	}
}

// windowSize is the size new sessions start with.
func (t *Team) windowSize() runner.Size {
	if t.term == nil {
		return runner.Size{Rows: runner.DefaultRows, Cols: runner.DefaultCols}
	}
	t.term.mu.Lock()
	defer t.term.mu.Unlock()
	return t.term.size
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
			if s := a.currentSession(); s != nil {
				a.inputMu.Lock()
				s.proc.Write(buf[:n])
				a.inputMu.Unlock()
			}
		}
		if err != nil {
			return
		}
	}
}

// termOutput is the session's output tee to the user's terminal.
func (t *Team) termOutput() io.Writer {
	if t.term == nil {
		return nil
	}
	return t.term.out
}
