package hookbus

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/unixsock"
)

// What the hook socket may hold in memory at once, whoever floods it: every
// connection's buffer and the line it reads (maxConns × (readBuf +
// smallLine) ≈ 2.5 MiB), the lines longer than smallLine being read
// (bigLines × maxMessage, about three times that while one is decoded: up
// to 26 MiB), and the messages waiting for the team (maxQueued, 8 MiB):
// about 36 MiB at most (TestHookSocketMemoryIsBounded measures the live
// heap: 17–37 MiB in 60 runs, 2026-12-07).
const (
	// maxMessage caps one message on the wire (a Stop payload carries the
	// whole answer), and what one connection may send in all.
	maxMessage = 4 << 20
	// maxConns bounds the connections served at once (idle ones are
	// dropped at connDeadline).
	maxConns = 32
	// readBuf is a connection's read buffer; smallLine the longest line a
	// connection reads without a big-line slot; bigLines how many longer
	// lines are read at once (another waits up to enqueueWait for a slot,
	// then is answered "busy": the hook spools it).
	readBuf   = 16 << 10
	smallLine = 64 << 10
	bigLines  = 2
	// queueLen and maxQueued bound the messages waiting for the team, in
	// number and in bytes.
	queueLen  = 1024
	maxQueued = 8 << 20
	// enqueueWait is how long a connection waits for room in the queue
	// before answering "busy"; the hook then spools the message.
	enqueueWait = 300 * time.Millisecond
	// refusalLogEvery bounds the log lines of refused connections.
	refusalLogEvery = 10 * time.Second
)

// connDeadline bounds one connection on the server side (a variable for
// TestHookSocketMemoryIsBounded, whose 32 lines of 4 MiB at once take
// longer under -race on a loaded machine: the test is of memory).
var connDeadline = 2 * time.Second

// Replies on the wire, one a message.
const (
	replyOK      = "ok"
	replyBusy    = "busy"    // no room now: the hook spools it
	replyRefused = "refused" // not from a process of the agent it names: dropped
	replyBad     = "bad"
)

// Server accepts hook messages on a unix socket.
type Server struct {
	logger hclog.Logger
	path   string
	ln     *net.UnixListener
	in     chan Message // taken by the connections
	msgs   chan Message // handed to the team (unbuffered: queued counts until it is taken)
	queued atomic.Int64 // payload bytes in in and in hand
	done   chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
	conns  chan struct{} // one token a connection being served
	big    chan struct{} // one token a line longer than smallLine being read
	owns   atomic.Pointer[func(agent string, pid int) bool]
	failed chan error // the error the socket died of (Failed)

	busyLog, refusedLog unixsock.Refusals
}

// CheckSenders makes the server ask owns whether the sender of each message
// is a process of the agent the message names, before it replies: the
// sender (`warden hook`) is still alive then, waiting for the reply, while
// by the time Messages delivers it it may have exited. The answer is in
// Message.Checked and Owned; a message not owned is answered "refused" and
// delivered without its payload (for the team to say so).
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
		in: make(chan Message, queueLen), msgs: make(chan Message), done: make(chan struct{}),
		conns: make(chan struct{}, maxConns), big: make(chan struct{}, bigLines), failed: make(chan error, 1),
		busyLog: unixsock.Refusals{Every: refusalLogEvery}, refusedLog: unixsock.Refusals{Every: refusalLogEvery}}
	s.wg.Add(1)
	go s.accept()
	go s.forward()
	s.logger.Debug("listening", "socket", path)
	return s, nil
}

// Path is the socket path.
func (s *Server) Path() string { return s.path }

// Failed gets, once, the error the socket died of while it served: its
// listener gone under it (unixsock.Dead), so that no hook reaches the team
// any more. Close is still to be called. Nothing comes after Close.
func (s *Server) Failed() <-chan error { return s.failed }

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
		close(s.in)
	})
}

// forward hands the queue to the team one message at a time, so that a
// message's bytes count against maxQueued until the team has it.
func (s *Server) forward() {
	defer close(s.msgs)
	for m := range s.in {
		s.msgs <- m
		s.queued.Add(-cost(m))
	}
}

// cost is what a queued message counts against maxQueued.
func cost(m Message) int64 { return int64(len(m.Payload)) + 256 }

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
			if unixsock.Dead(err) {
				s.logger.Error("the hook socket stopped accepting", "error", err)
				s.failed <- fmt.Errorf("hook socket: accept: %w", err)
				return
			}
			s.logger.Warn("accept failed", "error", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		select {
		case s.conns <- struct{}{}:
		default:
			s.busyLog.Warn(s.logger, "too many hook connections at once: refused", "max", maxConns)
			c.Close()
			continue
		}
		s.wg.Add(1)
		go s.handle(c)
	}
}

// handle reads one message a line until EOF and answers each with "ok",
// "busy" (no room: the client spools it), "refused" or "bad".
func (s *Server) handle(c *net.UnixConn) {
	defer s.wg.Done()
	defer func() { <-s.conns }()
	defer c.Close()
	caller := unixsock.Identify(c)
	defer caller.Close()
	_ = c.SetDeadline(time.Now().Add(connDeadline))
	if !caller.Known || caller.Uid != os.Getuid() {
		s.refusedLog.Warn(s.logger, "hook connection refused: not this user's", "uid", caller.Uid, "pid", caller.Pid)
		_, _ = c.Write([]byte(replyRefused + "\n"))
		return
	}
	r := bufio.NewReaderSize(io.LimitReader(c, maxMessage), readBuf)
	for {
		line, big, err := s.readLine(r)
		reply := ""
		switch {
		case errors.Is(err, errNoBigSlot):
			reply = replyBusy
		case len(line) > 0:
			reply = s.take(line, caller)
		}
		line = nil // not held past its slot: another long line may be read now
		if big {
			<-s.big
		}
		if reply != "" {
			if _, werr := c.Write([]byte(reply + "\n")); werr != nil {
				s.logger.Debug("reply failed", "error", werr)
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, errNoBigSlot) {
				s.logger.Debug("read failed", "error", err)
			}
			return
		}
	}
}

// errNoBigSlot: a line longer than smallLine while bigLines others were
// being read all the time it waited.
var errNoBigSlot = errors.New("no room for a long line now")

// readLine reads one line (up to maxMessage in all). Past smallLine it
// needs a big-line slot (big: held; the caller gives it back).
func (s *Server) readLine(r *bufio.Reader) (line []byte, big bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		if !big && len(line)+len(frag) > smallLine {
			t := time.NewTimer(enqueueWait)
			select {
			case s.big <- struct{}{}:
				big = true
			case <-t.C:
			}
			t.Stop()
			if !big {
				return nil, false, errNoBigSlot
			}
		}
		line = grow(line, len(frag))
		line = append(line, frag...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, big, err
		}
	}
}

// grow makes room for n more bytes in line by doubling it (up to
// maxMessage): a long line is copied a few times, not the twenty of
// append's quarter steps, whose copies are garbage the GC counts live
// while it runs.
func grow(line []byte, n int) []byte {
	if len(line)+n <= cap(line) {
		return line
	}
	c := min(max(2*cap(line), len(line)+n, readBuf), maxMessage)
	if c < len(line)+n {
		c = len(line) + n
	}
	return append(make([]byte, 0, c), line...)
}

func (s *Server) take(line []byte, caller *unixsock.Caller) string {
	var m Message
	if err := m.UnmarshalJSON(line); err != nil || m.Kind == "" {
		s.logger.Warn("bad hook message", "bytes", len(line), "error", err)
		return replyBad
	}
	m.Pid, m.Sender = caller.Pid, nil
	reply := replyOK
	if owns := s.owns.Load(); owns != nil {
		// The pid checked is the sender's only if the sender still holds
		// it once the check is done.
		m.Checked = true
		m.Owned = (*owns)(m.Agent, caller.Pid) && caller.Still()
		if !m.Owned {
			m.Payload, reply = nil, replyRefused
		}
	}
	if s.queued.Add(cost(m)) > maxQueued {
		s.queued.Add(-cost(m))
		s.busyLog.Warn(s.logger, "hook queue full: a message answered busy", "agent", m.Agent, "kind", m.Kind)
		return replyBusy
	}
	t := time.NewTimer(enqueueWait)
	defer t.Stop()
	select {
	case s.in <- m:
		return reply
	case <-t.C:
		s.busyLog.Warn(s.logger, "hook queue full: a message answered busy", "agent", m.Agent, "kind", m.Kind)
	case <-s.done:
	}
	s.queued.Add(-cost(m))
	if reply == replyRefused {
		return reply
	}
	return replyBusy
}
