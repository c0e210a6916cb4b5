package webpage

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/wardenhq/warden/internal/tcppeer"
	"github.com/wardenhq/warden/supervisor/control"
)

// The page's writes (answer, resume) are judged by who makes them, not
// only by the token (issue 33): an agent runs as the person and can read
// page-token. The client's process is found on this machine (tcppeer:
// its socket in /proc/net/tcp{,6}, the process holding it) and the
// request goes to the team made for it (control.Client.For): the team
// judges it as the control socket judges a caller, and refuses an agent's
// process, or anything an agent started.
//
// A client not on this machine (a phone over a VPN or the LAN) has no
// socket here: the token is its guard, as before. A client of another
// user (a reverse proxy of its own user) is not an agent's: agents run as
// the person. A client on this machine that cannot be judged — its socket
// gone before it was looked at, /proc unreadable, no process of the
// person's holding it — is refused: a person can answer from a terminal
// (warden answer, warden resume) or reload.

// forbidden is why a write is refused for who makes it (403).
type forbidden struct{ reason string }

func (f *forbidden) Error() string { return "refused: " + f.reason }

// clientFor is the control client to make r's write with: made for the
// process at the other end of r's connection when it is on this machine,
// or a *forbidden when that process cannot be judged.
func (s *Server) clientFor(r *http.Request) (*control.Client, error) {
	client, err := net.ResolveTCPAddr("tcp", r.RemoteAddr)
	server, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	if err != nil || !ok {
		return s.opts.Client, nil // not a TCP connection of this server's (a test's handler)
	}
	here := tcppeer.OnThisMachine(client.IP)
	p, err := tcppeer.Find(client, server, os.Geteuid())
	switch {
	case errors.Is(err, tcppeer.ErrUnsupported):
		return s.opts.Client, nil // no /proc, no box: the token alone, as the docs say
	case err != nil && here:
		return nil, &forbidden{fmt.Sprintf("the page cannot tell whether its client %s is an agent's process (%v): answer from a terminal (warden answer, warden resume)", client, err)}
	case err != nil:
		s.log.Debug("a remote client's socket was not looked for", "client", client.String(), "error", err)
		return s.opts.Client, nil
	case !p.Local && here:
		return nil, &forbidden{fmt.Sprintf("the page's client %s is on this machine but its socket is gone (closed before it could be judged)", client)}
	case !p.Local:
		return s.opts.Client, nil // another machine: the token is its guard
	case p.Inode == 0:
		return nil, &forbidden{fmt.Sprintf("the page's client %s closed its end before it could be judged", client)}
	case p.UID != os.Geteuid():
		return s.opts.Client, nil // another user's process (a proxy): agents run as warden's user
	case p.Pid != 0:
		return s.opts.Client.For(p.Pid), nil
	case len(p.Hidden) > 0:
		return s.opts.Client.For(p.Hidden...), nil // one of them holds it: refused if any is an agent's
	default:
		return nil, &forbidden{fmt.Sprintf("no process of warden's user holds the page's client socket %s", client)}
	}
}

// refuseWrite answers a write refused for who made it: 403, and a log
// line (at most one every few seconds).
func (s *Server) refuseWrite(w http.ResponseWriter, r *http.Request, err error) {
	s.refusals.Warn(s.log, "a write from the page refused: its client is an agent's, or cannot be judged", "path", r.URL.Path, "client", r.RemoteAddr, "reason", err.Error())
	writeJSON(w, http.StatusForbidden, map[string]string{"error": err.Error()})
}

// refusedForWho reports whether err refuses a write for who made it.
func refusedForWho(err error) bool {
	var f *forbidden
	var c *control.RefusedError
	return errors.As(err, &f) || errors.As(err, &c)
}
