package session

import (
	"io"
	"sync"
)

// keys is what t is typed into: the process, and for the session's first
// prompt a watch that tells the reporter once its Enter is pressed
// (Reporter.Prompted: state.json says the session had its prompt, and a
// warden killed from then on leaves a session the next one takes back).
// Whether the CLI then took it is not awaited: a warden killed that
// often (a kill moment a second) had a TUI started afresh at every run.
func (s *Session) keys(t typed) io.Writer {
	if !t.prompt {
		return s.proc
	}
	return &enterWatch{w: s.proc, pressed: s.r.Prompted}
}

// enterWatch passes writes on and calls pressed once a write that ends
// with an Enter (CR, or a plain agent's line end) went through: a
// profile types the text without one (a paste, its newlines as spaces),
// then the Enter.
type enterWatch struct {
	w       io.Writer
	pressed func()
	once    sync.Once
}

func (e *enterWatch) Write(b []byte) (int, error) {
	n, err := e.w.Write(b)
	if err == nil && n == len(b) && n > 0 && (b[n-1] == '\r' || b[n-1] == '\n') {
		e.once.Do(e.pressed)
	}
	return n, err
}
