package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/unixsock"
	"github.com/wardenhq/warden/supervisor/face"
)

const (
	// maxRequest bounds a request line (a send's text).
	maxRequest = 1 << 20
	// maxConns bounds the connections served at once, watchers apart:
	// these slots are the operators' (ps, stop, send, attach…).
	maxConns = 64
	// maxWatchers bounds the watchers (the page's viewers, of every page
	// beside the team) with slots of their own: however many watch, they
	// never take a slot ps or stop needs.
	maxWatchers = 32
	// requestDeadline bounds the wait for a connection's request line.
	requestDeadline = 5 * time.Second
	// writeDeadline bounds one write to a client: a viewer that stops
	// reading is dropped, never waited on.
	writeDeadline = 5 * time.Second
	// defaultSendWait and maxSendWait bound a send's wait for a turn boundary.
	defaultSendWait = 5 * time.Minute
	maxSendWait     = time.Hour
	// restartWait bounds warden restart's wait for the new session.
	restartWait = 10 * time.Minute
)

// Team is what the control socket needs of the running team.
type Team interface {
	PS() PS
	Screen(agent string) (*Screen, error)
	// Viewer attaches to the agent's running session; ErrNoSession when it
	// has none now.
	Viewer(agent string) (face.Viewer, error)
	Keys(agent string, p []byte) error
	Send(ctx context.Context, agent, text string, force bool) (face.SendResult, error)
	// Restart asks for a last checkpoint and a new session, and returns
	// once that session runs.
	Restart(ctx context.Context, agent string) (*Restarted, error)
	// Stop asks for a team checkpoint, then exit; now skips the last
	// checkpoint requests.
	Stop(now bool)
	// Emit writes an event (a person's action) to the event log.
	Emit(name, agent string, kv ...any)
}

// Gatekeeper is what a Team implements to refuse callers of warden's own
// user by who they are: the control socket serves the person, never the
// agents (DESIGN §7).
type Gatekeeper interface {
	// Admit returns nil for the process pid when the socket serves it, or
	// why not (the agent whose process tree it is in…).
	Admit(pid int) error
}

// allowedUID is the only user whose processes may connect: warden's own.
var allowedUID = os.Getuid

// refusalLogEvery bounds the log lines of refused connections.
const refusalLogEvery = 10 * time.Second

// ErrNoSession: the agent exists but has no running session now.
var ErrNoSession = errors.New("no running session")

// Server serves the control socket.
type Server struct {
	log    hclog.Logger
	team   Team
	hub    *Hub
	ln     *net.UnixListener
	path   string
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	slots  chan struct{}
	// watchSlots are the watchers': a watch moves from slots to these.
	watchSlots chan struct{}

	mu    sync.Mutex
	conns map[net.Conn]struct{}

	refusals unixsock.Refusals
	// failed gets the error the socket died of (Failed).
	failed chan error
}

// Listen serves the control socket at path (state.Layout.ControlSocket):
// 0600, a stale socket replaced, a live one refused.
func Listen(logger hclog.Logger, path string, team Team, hub *Hub) (*Server, error) {
	ln, err := unixsock.Listen(path)
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{log: logger.Named("control"), team: team, hub: hub, ln: ln, path: path, ctx: ctx, cancel: cancel,
		slots: make(chan struct{}, maxConns), watchSlots: make(chan struct{}, maxWatchers), conns: map[net.Conn]struct{}{},
		refusals: unixsock.Refusals{Every: refusalLogEvery}, failed: make(chan error, 1)}
	s.wg.Add(1)
	go s.accept()
	s.log.Debug("listening", "socket", path)
	return s, nil
}

// Path is the socket's path.
func (s *Server) Path() string { return s.path }

// Failed gets, once, the error the socket died of while it served: its
// listener gone under it (unixsock.Dead), so that nobody can reach the
// team through it any more. Close is still to be called. Nothing comes
// after Close.
func (s *Server) Failed() <-chan error { return s.failed }

// Close stops serving: streams end (attach viewers are told warden is
// done, warden stop's callers see the end), the socket is removed.
func (s *Server) Close() {
	s.cancel()
	s.ln.Close()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-time.After(time.Second):
	}
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	<-done
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			if s.ctx.Err() != nil {
				return
			}
			if unixsock.Dead(err) {
				s.log.Error("the control socket stopped accepting", "error", err)
				s.failed <- fmt.Errorf("control socket: accept: %w", err)
				return
			}
			s.log.Warn("accept failed", "error", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if err := s.admit(c); err != nil {
			reply(c, refused(err))
			c.Close()
			continue
		}
		select {
		case s.slots <- struct{}{}:
		default:
			reply(c, Response{Error: "too many control connections at once"})
			c.Close()
			continue
		}
		s.track(c, true)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			var once sync.Once
			release := func() { once.Do(func() { <-s.slots }) }
			defer release()
			defer s.track(c, false)
			defer c.Close()
			s.serve(c, release)
		}()
	}
}

// admit says why the caller at the other end of c is refused, or nil:
// a process of another user (SO_PEERCRED), or one the team refuses
// (Gatekeeper: an agent, or anything an agent started) — judged while the
// caller still holds its pid (unixsock.Caller.Still).
func (s *Server) admit(c *net.UnixConn) error {
	caller := unixsock.Identify(c)
	defer caller.Close()
	if !caller.Known || caller.Uid != allowedUID() {
		s.refusals.Warn(s.log, "control connection refused: not warden's user", "uid", caller.Uid, "pid", caller.Pid)
		return fmt.Errorf("uid %d is not warden's", caller.Uid)
	}
	g, ok := s.team.(Gatekeeper)
	if !ok {
		return nil
	}
	err := g.Admit(caller.Pid)
	if err == nil && !caller.Still() {
		err = fmt.Errorf("pid %d exited while it was being checked", caller.Pid)
	}
	if err != nil {
		s.refusals.Warn(s.log, "control connection refused", "pid", caller.Pid, "reason", err.Error())
	}
	return err
}

func (s *Server) track(c net.Conn, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.conns[c] = struct{}{}
	} else {
		delete(s.conns, c)
	}
}

// serve reads one request and answers it; release gives the connection's
// operator slot back (a watch holds a watcher's slot instead).
func (s *Server) serve(c *net.UnixConn, release func()) {
	_ = c.SetReadDeadline(time.Now().Add(requestDeadline))
	br := bufio.NewReaderSize(io.LimitReader(c, maxRequest), 64<<10)
	line, err := br.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		reply(c, Response{Error: "bad request: " + err.Error()})
		return
	}
	s.log.Debug("request", "cmd", req.Cmd, "agent", req.Agent, "for", req.For)
	if err := s.admitFor(req); err != nil {
		reply(c, refused(err))
		return
	}
	switch req.Cmd {
	case CmdPS:
		ps := s.team.PS()
		reply(c, Response{OK: true, PS: &ps})
	case CmdScreen:
		scr, err := s.team.Screen(req.Agent)
		reply(c, answer(Response{Screen: scr}, err))
	case CmdSend:
		wait := req.Wait
		switch {
		case wait <= 0:
			wait = defaultSendWait
		case wait > maxSendWait:
			wait = maxSendWait
		}
		ctx, cancel := s.untilGone(c, br, wait)
		defer cancel()
		res, err := s.team.Send(ctx, req.Agent, req.Text, req.Force)
		reply(c, answer(Response{Send: &res}, err))
	case CmdRestart:
		ctx, cancel := s.untilGone(c, br, restartWait)
		defer cancel()
		r, err := s.team.Restart(ctx, req.Agent)
		reply(c, answer(Response{Restart: r}, err))
	case CmdResume:
		reply(c, s.resume(req))
	case CmdAnswer:
		ctx, cancel := s.untilGone(c, br, answerWait)
		defer cancel()
		reply(c, s.answer(ctx, req))
	case CmdStop:
		s.log.Info("stop asked for over the control socket", "now", req.Now)
		s.team.Stop(req.Now)
		if reply(c, Response{OK: true}) == nil {
			<-s.ctx.Done() // the caller waits until warden is done
		}
	case CmdUpgrade:
		s.upgrade(c, req)
	case CmdAttach:
		s.attach(c, br, req)
	case CmdWatch:
		select {
		case s.watchSlots <- struct{}{}:
		default:
			reply(c, Response{Error: fmt.Sprintf("too many watchers at once (%d): the team's page has as many viewers as it serves", maxWatchers)})
			return
		}
		defer func() { <-s.watchSlots }()
		release()
		s.watch(c, br, req)
	default:
		reply(c, Response{Error: fmt.Sprintf("unknown command %q", req.Cmd)})
	}
}

// untilGone is a context that ends after d, when the client hangs up, or
// when the server closes.
func (s *Server) untilGone(c net.Conn, br *bufio.Reader, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(s.ctx, d)
	go func() {
		_, _ = br.ReadByte() // the client sends nothing more: this returns when it hangs up
		cancel()
	}()
	return ctx, func() {
		cancel()
		_ = c.SetReadDeadline(time.Now()) // ends the reader above
	}
}

func answer(r Response, err error) Response {
	if err != nil {
		return Response{Error: err.Error()}
	}
	r.OK = true
	return r
}

// reply writes one response line.
func reply(c net.Conn, r Response) error {
	b, err := json.Marshal(r)
	if err != nil {
		b, _ = json.Marshal(Response{Error: "encode: " + err.Error()})
	}
	_ = c.SetWriteDeadline(time.Now().Add(writeDeadline))
	_, err = c.Write(append(b, '\n'))
	return err
}
