package control

import (
	"errors"
	"fmt"
	"strings"
)

// The dashboard page talks to the team through this socket, so the
// socket's peer check sees the page, not the page's client. A request the
// page makes for a client it found on this machine names that client's
// processes (Request.For, issue 33): the team judges them as it judges its
// own callers (Gatekeeper), and refuses the request when one is an
// agent's. Only a caller the socket admitted (the person's page) can name
// them; an agent cannot reach the socket to leave them out.

// RefusedError is a request the team refused for who made it: its caller,
// or a process it was made for (Request.For).
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return "refused: " + e.Reason }

// For is a client whose requests are made for the processes pids (the
// page's client, found by tcppeer): the team refuses them when one of
// those is an agent's, or one an agent started.
func (c *Client) For(pids ...int) *Client {
	cc := *c
	cc.forPids = append([]int(nil), pids...)
	return &cc
}

// admitFor says why a request made for pids is refused, or nil: the first
// of them the team refuses (Gatekeeper.Admit, as for a caller).
func (s *Server) admitFor(req Request) error {
	if len(req.For) == 0 {
		return nil
	}
	g, ok := s.team.(Gatekeeper)
	if !ok {
		return nil
	}
	for _, pid := range req.For {
		if pid <= 0 {
			return fmt.Errorf("pid %d names no process", pid)
		}
		if err := g.Admit(pid); err != nil {
			s.refusals.Warn(s.log, "request refused: made for an agent's process", "cmd", req.Cmd, "agent", req.Agent, "for_pid", pid, "reason", err.Error())
			return fmt.Errorf("the page's client %w", err)
		}
	}
	return nil
}

// refused is the answer to a refused caller or request.
func refused(err error) Response {
	return Response{Error: (&RefusedError{Reason: err.Error()}).Error(), Refused: true}
}

// asRefused turns a refused response into a *RefusedError.
func asRefused(r Response) error {
	if !r.Refused {
		return errors.New(r.Error)
	}
	return &RefusedError{Reason: strings.TrimPrefix(r.Error, "refused: ")}
}
