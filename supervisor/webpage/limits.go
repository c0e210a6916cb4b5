package webpage

import (
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Limits bound what the page can cost warden, whoever connects: the page
// and everything a client can make it hold are a fixed share of warden's
// descriptors, so that no number of clients — with the token or without —
// can starve the team's checkpoints, logs or control socket (issue 22,
// item 2: 20,000 idle connections took every descriptor).
type Limits struct {
	// MaxConns bounds the connections open at once (the page's budget of
	// descriptors); one past it is answered 503 and closed at once.
	MaxConns int
	// MaxConnsPerHost bounds the connections of one remote address, so
	// that one client cannot take every slot from a probe or a person.
	MaxConnsPerHost int
	// MaxStreams bounds the event streams (the page's viewers) at once;
	// each holds one watcher of the control socket.
	MaxStreams int
	// ReadHeaderTimeout bounds the wait for a request's header (a
	// connection that sends nothing, or half a header, is closed then);
	// ReadTimeout the whole request; WriteTimeout a response (an event
	// stream sets its own deadline for each write: StreamWriteTimeout);
	// IdleTimeout a kept-alive connection between requests.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	StreamWriteTimeout                                        time.Duration
}

const (
	// maxPageConns is the most connections the page holds, however high
	// the descriptor limit; minPageConns the fewest, however low.
	maxPageConns = 256
	minPageConns = 16
	// nofileShare: the page takes at most 1/nofileShare of the descriptor
	// limit (Go's runtime raised the soft limit to the hard one at start).
	nofileShare = 8
	// maxStreams is the viewers one page serves at once: two pages (run
	// --http and a warden serve) fit the control socket's 32 watchers.
	maxStreams = 16
	// maxHeaderBytes bounds a request's header (a browser sends ~2 KiB).
	maxHeaderBytes = 32 << 10
)

// DefaultLimits are the page's limits on this process: its share of the
// descriptor limit (RLIMIT_NOFILE) and timeouts that keep a live viewer
// and drop whatever only holds a connection.
func DefaultLimits() Limits {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		rl.Cur = 0
	}
	return limitsFor(rl.Cur)
}

// limitsFor are the limits under a descriptor limit of nofile (0: unknown).
func limitsFor(nofile uint64) Limits {
	conns := maxPageConns
	if nofile > 0 && nofile/nofileShare < uint64(conns) {
		conns = max(minPageConns, int(nofile/nofileShare))
	}
	return Limits{
		MaxConns:           conns,
		MaxConnsPerHost:    max(1, conns/2),
		MaxStreams:         min(maxStreams, max(1, conns/4)),
		ReadHeaderTimeout:  5 * time.Second,
		ReadTimeout:        10 * time.Second,
		WriteTimeout:       30 * time.Second,
		IdleTimeout:        60 * time.Second,
		StreamWriteTimeout: 10 * time.Second,
	}
}

// filled is l with every zero field from DefaultLimits.
func (l Limits) filled() Limits {
	d := DefaultLimits()
	set := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	setD := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&l.MaxConns, d.MaxConns)
	set(&l.MaxConnsPerHost, max(1, l.MaxConns/2))
	set(&l.MaxStreams, min(d.MaxStreams, max(1, l.MaxConns/4)))
	setD(&l.ReadHeaderTimeout, d.ReadHeaderTimeout)
	setD(&l.ReadTimeout, d.ReadTimeout)
	setD(&l.WriteTimeout, d.WriteTimeout)
	setD(&l.IdleTimeout, d.IdleTimeout)
	setD(&l.StreamWriteTimeout, d.StreamWriteTimeout)
	return l
}

// refusalLogEvery bounds the log lines about refused connections: a flood
// is one line now and then, not one per connection.
const refusalLogEvery = time.Minute

// limitListener accepts connections up to its limits and answers the rest
// 503 and closes them at once: they never wait in the kernel's queue in
// front of a probe, and never hold a descriptor of warden's for longer
// than that answer.
type limitListener struct {
	net.Listener
	max, perHost int
	log          hclog.Logger

	mu       sync.Mutex
	open     int
	hosts    map[string]int
	refused  int // since the last log line
	lastLog  time.Time
	refusals int // in all, for tests
}

func newLimitListener(ln net.Listener, l Limits, log hclog.Logger) *limitListener {
	return &limitListener{Listener: ln, max: l.MaxConns, perHost: l.MaxConnsPerHost, log: log, hosts: map[string]int{}}
}

const tooMany = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: 43\r\n\r\ntoo many connections to this page at once\r\n"

// Accept returns the next connection within the limits.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host := remoteHost(c)
		if l.take(host) {
			return &limitConn{Conn: c, release: func() { l.give(host) }}, nil
		}
		// A write of this size to a new connection never blocks: the
		// socket's buffer is empty.
		_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
		_, _ = io.WriteString(c, tooMany)
		c.Close()
	}
}

func (l *limitListener) take(host string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open >= l.max || l.hosts[host] >= l.perHost {
		l.refused++
		l.refusals++
		if time.Since(l.lastLog) >= refusalLogEvery {
			l.log.Warn("page connections refused: the page is at its limit", "refused", l.refused,
				"limit", fmt.Sprintf("%d at once, %d per address", l.max, l.perHost), "last_from", host)
			l.refused, l.lastLog = 0, time.Now()
		}
		return false
	}
	l.open++
	l.hosts[host]++
	return true
}

func (l *limitListener) give(host string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if l.hosts[host]--; l.hosts[host] <= 0 {
		delete(l.hosts, host)
	}
}

// counts are the connections open now and refused in all (for tests).
func (l *limitListener) counts() (open, refused int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open, l.refusals
}

func remoteHost(c net.Conn) string {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return c.RemoteAddr().String()
}

// limitConn gives its slot back when closed (once).
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
