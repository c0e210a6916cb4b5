package control

import (
	"bufio"
	"errors"
	"net"
	"time"

	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/face"
)

// sessionPoll is how often an attached viewer looks for the agent's next
// session when it has none.
const sessionPoll = 200 * time.Millisecond

// attach streams the agent's terminal to the client: the screen as it is,
// then the output, session after session, until the viewer detaches, falls
// behind or warden is done. With rw the client's keystrokes reach the agent.
func (s *Server) attach(c *net.UnixConn, br *bufio.Reader, req Request) {
	v, err := s.team.Viewer(req.Agent)
	if err != nil && !errors.Is(err, ErrNoSession) {
		reply(c, Response{Error: err.Error()})
		return
	}
	a := &Attached{Agent: req.Agent, RW: req.RW}
	if v != nil {
		o := v.Opening()
		a.Rows, a.Cols = o.Rows, o.Cols
	}
	if reply(c, Response{OK: true, Attach: a}) != nil {
		if v != nil {
			v.Close()
		}
		return
	}
	s.team.Emit(event.ViewerAttached, req.Agent, "rw", req.RW)
	gone := make(chan struct{})
	go s.viewerInput(br, req, gone)
	w := &frameWriter{c: c, bw: bufio.NewWriterSize(c, 64<<10)}
	why := s.stream(w, v, req.Agent, gone)
	s.team.Emit(event.ViewerDetached, req.Agent, "why", why)
}

// stream writes sessions' output until the viewer is gone; it returns why
// it ended.
func (s *Server) stream(w *frameWriter, v face.Viewer, agent string, gone <-chan struct{}) string {
	told := false
	for {
		if v == nil {
			if !told {
				w.note("[warden] " + agent + " has no running session now: waiting for its next one (Ctrl-\\ detaches)")
				told = true
			}
			select {
			case <-gone:
				return face.EndDetached
			case <-s.ctx.Done():
				w.end("warden is done")
				return face.EndSession
			case <-time.After(sessionPoll):
			}
			v, _ = s.team.Viewer(agent)
			continue
		}
		o, alt := v.Opening(), byte(0)
		if o.Alt {
			alt = 1
		}
		if o.Cols > 0 && o.Rows > 0 { // the viewer draws the screen at the agent's size, whatever its own
			_ = w.buffer(FrameSize, SizePayload(o.Cols, o.Rows))
		}
		if w.frame(FrameScreen, append([]byte{alt}, o.Screen...)) != nil {
			v.Close()
			return face.EndSlow
		}
		why := s.pump(w, v, gone)
		switch why {
		case face.EndSession:
			w.note("[warden] " + agent + "'s session ended; waiting for its next one (Ctrl-\\ detaches)")
			v, told = nil, true
			continue
		case face.EndSlow:
			w.end("your terminal fell behind " + agent + "'s output and was dropped (the agent never waits for a viewer): attach again")
		case "warden":
			w.end("warden is done")
			return face.EndSession
		}
		return why
	}
}

// pump copies one session's output to the client.
func (s *Server) pump(w *frameWriter, v face.Viewer, gone <-chan struct{}) string {
	for {
		select {
		case chunk, ok := <-v.C():
			if !ok {
				return v.End()
			}
			v.Taken(chunk)
			err := w.buffer(FrameOutput, chunk)
			for more := true; more && err == nil; { // what came meanwhile, in the same write
				select {
				case next, ok := <-v.C():
					if !ok {
						more = false
						break
					}
					v.Taken(next)
					err = w.buffer(FrameOutput, next)
				default:
					more = false
				}
			}
			if err == nil {
				err = w.flush()
			}
			if err != nil {
				v.Close()
				return face.EndSlow
			}
		case <-gone:
			v.Close()
			return face.EndDetached
		case <-s.ctx.Done():
			v.Close()
			return "warden"
		}
	}
}

// viewerInput reads the client's frames: keystrokes (rw) and detach. gone
// closes when the viewer leaves.
func (s *Server) viewerInput(br *bufio.Reader, req Request, gone chan<- struct{}) {
	defer close(gone)
	for {
		kind, p, err := ReadFrame(br)
		if err != nil || kind == FrameDetach {
			return
		}
		if kind == FrameKeys && req.RW {
			if err := s.team.Keys(req.Agent, p); err != nil {
				s.log.Debug("keystrokes not passed", "agent", req.Agent, "error", err)
			}
		}
	}
}

// frameWriter writes frames to a client, each flush bounded by writeDeadline.
type frameWriter struct {
	c  net.Conn
	bw *bufio.Writer
}

func (w *frameWriter) buffer(kind byte, p []byte) error { return WriteFrame(w.bw, kind, p) }

func (w *frameWriter) flush() error {
	_ = w.c.SetWriteDeadline(time.Now().Add(writeDeadline))
	return w.bw.Flush()
}

func (w *frameWriter) frame(kind byte, p []byte) error {
	if err := w.buffer(kind, p); err != nil {
		return err
	}
	return w.flush()
}

func (w *frameWriter) note(text string) { _ = w.frame(FrameNote, []byte(text)) }

func (w *frameWriter) end(text string) { _ = w.frame(FrameEnd, []byte(text)) }
