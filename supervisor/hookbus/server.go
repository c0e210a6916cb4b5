package hookbus

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/unixsock"
)

const (
	// maxMessage caps one message on the wire (a Stop payload carries the
	// whole answer).
	maxMessage = 4 << 20
	// maxConns bounds the connections served at once: with maxMessage, the
	// memory a flood of connections can take (idle ones are dropped at
	// connDeadline).
	maxConns = 32
	// queueLen is how many messages wait for the consumer.
	queueLen = 1024
	// enqueueWait is how long a connection waits for room in the queue
	// before answering "busy"; the hook then spools the message.
	enqueueWait = 300 * time.Millisecond
	// connDeadline bounds one connection on the server side.
	connDeadline = 2 * time.Second
)

// Server accepts hook messages on a unix socket.
type Server struct {
	logger hclog.Logger
	path   string
	ln     *net.UnixListener
	msgs   chan Message
	done   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
	conns  chan struct{} // one token a connection being served
	owns   atomic.Pointer[func(agent string, pid int) bool]
}

// CheckSenders makes the server ask owns whether the sender of each message
// is a process of the agent the message names, before it replies: the
// sender (`warden hook`) is still alive then, waiting for the reply, while
// by the time Messages delivers it it may have exited. The answer is in
// Message.Checked and Owned.
func (s *Server) CheckSenders(owns func(agent string, pid int) bool) { s.owns.Store(&owns) }

// Listen serves the hook socket at path (see SocketPath). The socket is
// 0600 and its directory must be the state dir or a 0700 directory of ours.
// A stale socket left by a dead supervisor is replaced; a live one is an
// error (another supervisor runs this team).
func Listen(logger hclog.Logger, path string) (*Server, error) {
	ln, err := unixsock.Listen(path)
	if err != nil {
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	s := &Server{logger: logger.Named("hookbus"), path: path, ln: ln,
		msgs: make(chan Message, queueLen), done: make(chan struct{}),
		conns: make(chan struct{}, maxConns)}
	s.wg.Add(1)
	go s.accept()
	s.logger.Debug("listening", "socket", path)
	return s, nil
}

// Path is the socket path.
func (s *Server) Path() string { return s.path }

// Messages delivers every accepted message, in arrival order. It is closed
// after Close.
func (s *Server) Messages() <-chan Message { return s.msgs }

// Close stops accepting, waits for open connections, removes the socket and
// closes Messages. Messages still queued stay readable.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.done)
		s.ln.Close()
		s.wg.Wait()
		close(s.msgs)
	})
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			select {
			case <-s.done:
				return
			default:
			}
			s.logger.Warn("accept failed", "error", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		select {
		case s.conns <- struct{}{}:
		default:
			s.logger.Warn("too many hook connections at once: one refused", "max", maxConns)
			c.Close()
			continue
		}
		s.wg.Add(1)
		go s.handle(c)
	}
}

// handle reads one message a line until EOF and answers each with "ok" or
// "busy" (no room: the client spools it).
func (s *Server) handle(c *net.UnixConn) {
	defer s.wg.Done()
	defer func() { <-s.conns }()
	defer c.Close()
	pid := peerPid(c)
	_ = c.SetDeadline(time.Now().Add(connDeadline))
	r := bufio.NewReaderSize(io.LimitReader(c, maxMessage), 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			reply := s.take(line, pid)
			if _, werr := c.Write([]byte(reply + "\n")); werr != nil {
				s.logger.Debug("reply failed", "error", werr)
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.logger.Debug("read failed", "error", err)
			}
			return
		}
	}
}

func (s *Server) take(line []byte, pid int) string {
	var m Message
	if err := m.UnmarshalJSON(line); err != nil || m.Kind == "" {
		s.logger.Warn("bad hook message", "bytes", len(line), "error", err)
		return "bad"
	}
	m.Pid = pid
	if owns := s.owns.Load(); owns != nil {
		m.Checked, m.Owned = true, (*owns)(m.Agent, pid)
	}
	t := time.NewTimer(enqueueWait)
	defer t.Stop()
	select {
	case s.msgs <- m:
		return "ok"
	case <-t.C:
		s.logger.Warn("hook queue full", "agent", m.Agent, "kind", m.Kind)
		return "busy"
	case <-s.done:
		return "busy"
	}
}

// peerPid is the pid of the process at the other end of c (SO_PEERCRED), 0
// when the kernel does not say.
func peerPid(c *net.UnixConn) int { return unixsock.PeerOf(c).Pid }
