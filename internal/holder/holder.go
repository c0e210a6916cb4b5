// Package holder keeps agents' terminals alive while no warden runs: a
// small server (meant to run as `warden hold`, in a session of its own)
// that starts each agent under a pty, stays its parent and its orphans'
// subreaper, drains every master no client holds into a bounded ring,
// hands masters to a client over its unix socket (SCM_RIGHTS), records
// exit statuses, and stops every agent itself once no client came back
// within OrphanTimeout. Client is warden's side. See docs/design-holder.md.
package holder

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/unixsock"
)

// Defaults for a Holder's zero fields.
const (
	DefaultRingSize      = 1 << 20
	DefaultOrphanTimeout = 10 * time.Minute
	DefaultStopTimeout   = 5 * time.Second
	// writeTimeout drops a client that reads nothing for this long.
	writeTimeout = 10 * time.Second
	// maxRequest bounds a request line.
	maxRequest = 1 << 20
)

// ErrOrphaned is returned by Serve when it stopped its agents because no
// client was connected for OrphanTimeout.
var ErrOrphaned = errors.New("no client for the orphan timeout: every agent stopped")

// Holder is the server. Set its fields before Serve.
type Holder struct {
	Socket        string        // the unix socket; its directory is made 0700 and must be ours
	RingSize      int           // output kept per agent while no client reads it
	OrphanTimeout time.Duration // no client this long: stop every agent and return
	StopTimeout   time.Duration // SIGTERM to SIGKILL

	log  hclog.Logger
	self int

	mu       sync.Mutex
	agents   []*agent // in start order
	byID     map[string]*agent
	conns    map[*conn]bool
	orphanGo uint64 // bumped at each connect: a stale orphan timer does nothing
	orphaned chan struct{}
	orphanCl sync.Once
	closed   bool

	rmu      sync.Mutex // the reaper's maps
	leaders  map[int]*agent
	sessions map[int]*agent // by pid (= sid = pgid)
	tags     map[string]*agent
	strays   map[int]bool
	kick     chan struct{}

	nextID   int
	refusals unixsock.Refusals
	connWG   sync.WaitGroup // connections being served
	exitWG   sync.WaitGroup // ends of exited agents; Added by the reaper only
}

// New returns a holder that will listen on socket.
func New(log hclog.Logger, socket string) *Holder {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	return &Holder{
		Socket:   socket,
		log:      log.Named("holder"),
		self:     os.Getpid(),
		byID:     map[string]*agent{},
		conns:    map[*conn]bool{},
		orphaned: make(chan struct{}),
		leaders:  map[int]*agent{},
		sessions: map[int]*agent{},
		tags:     map[string]*agent{},
		strays:   map[int]bool{},
		kick:     make(chan struct{}, 1),
		refusals: unixsock.Refusals{Every: 5 * time.Second},
	}
}

// Serve listens and serves until ctx ends or no client was connected for
// OrphanTimeout (ErrOrphaned); either way it stops every agent (SIGTERM,
// then SIGKILL after StopTimeout) and reaps them before it returns:
// nothing it started outlives it.
func (h *Holder) Serve(ctx context.Context) error {
	h.defaults()
	if err := setSubreaper(); err != nil {
		return fmt.Errorf("holder: become child subreaper: %w", err)
	}
	if err := unixsock.PrivateDir(filepath.Dir(h.Socket)); err != nil {
		return fmt.Errorf("holder: %w", err)
	}
	ln, err := unixsock.Listen(h.Socket)
	if err != nil {
		return fmt.Errorf("holder: %w", err)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGCHLD)
	defer signal.Stop(sigs)
	reaperDone := make(chan struct{})
	stopReaper := make(chan struct{})
	go func() {
		defer close(reaperDone)
		for {
			select {
			case <-sigs:
			case <-h.kick:
			case <-stopReaper:
				return
			}
			h.reapPass()
		}
	}()
	h.mu.Lock()
	h.armOrphanTimerLocked()
	h.mu.Unlock()
	h.log.Info("holding", "socket", h.Socket, "pid", h.self, "orphan_timeout", h.OrphanTimeout)

	acceptDone := make(chan struct{})
	go func() { defer close(acceptDone); h.accept(ln) }()

	var result error
	select {
	case <-ctx.Done():
		h.log.Info("holder told to end: stopping every agent")
	case <-h.orphaned:
		h.log.Warn("no client came back: stopping every agent", "orphan_timeout", h.OrphanTimeout)
		result = ErrOrphaned
	}
	_ = ln.Close()
	<-acceptDone
	h.mu.Lock()
	h.closed = true
	conns := make([]*conn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	for _, c := range conns {
		c.close()
	}
	h.connWG.Wait() // no start is under way now
	h.stopAll()
	close(stopReaper)
	<-reaperDone
	h.exitWG.Wait()
	_ = os.Remove(h.Socket) // the listener removed it, unless it was replaced
	h.log.Info("holder ended", "agents", len(h.agents))
	return result
}

func (h *Holder) defaults() {
	if h.RingSize <= 0 {
		h.RingSize = DefaultRingSize
	}
	if h.OrphanTimeout <= 0 {
		h.OrphanTimeout = DefaultOrphanTimeout
	}
	if h.StopTimeout <= 0 {
		h.StopTimeout = DefaultStopTimeout
	}
}

// accept serves each connection of our own user until the listener closes.
func (h *Holder) accept(ln *net.UnixListener) {
	for {
		uc, err := ln.AcceptUnix()
		if err != nil {
			if unixsock.Dead(err) {
				return
			}
			h.log.Warn("accept failed", "error", err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if p := unixsock.PeerOf(uc); !p.Known || p.Uid != os.Getuid() {
			h.refusals.Warn(h.log, "refused a client of another user", "pid", p.Pid, "uid", p.Uid)
			_ = uc.Close()
			continue
		}
		c := newConn(h, uc)
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			_ = uc.Close()
			continue
		}
		h.conns[c] = true
		h.orphanGo++
		h.mu.Unlock()
		h.connWG.Add(1)
		go func() { defer h.connWG.Done(); c.serve() }()
	}
}

// armOrphanTimerLocked starts the orphan clock; a connection made before
// it fires makes it void. h.mu is held.
func (h *Holder) armOrphanTimerLocked() {
	h.orphanGo++
	gen := h.orphanGo
	time.AfterFunc(h.OrphanTimeout, func() {
		h.mu.Lock()
		fire := h.orphanGo == gen && len(h.conns) == 0
		h.mu.Unlock()
		if fire {
			h.orphanCl.Do(func() { close(h.orphaned) })
		}
	})
}

// dropConn forgets a connection that ended: the drain takes the masters
// it held again, and with no connection left the orphan clock starts.
func (h *Holder) dropConn(c *conn) {
	h.mu.Lock()
	delete(h.conns, c)
	agents := append([]*agent(nil), h.agents...)
	if len(h.conns) == 0 && !h.closed {
		h.armOrphanTimerLocked()
	}
	h.mu.Unlock()
	resumed := 0
	for _, a := range agents {
		a.mu.Lock()
		if a.adoptedBy == c {
			a.adoptedBy = nil
			a.resumeLocked()
			resumed++
		}
		a.mu.Unlock()
	}
	h.log.Info("client gone", "pid", c.peer.Pid, "masters_drained_again", resumed)
}

// start starts an agent.
func (h *Holder) start(req StartRequest) (*agent, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, errors.New("the holder is stopping")
	}
	h.nextID++
	id := "a" + strconv.Itoa(h.nextID)
	h.mu.Unlock()
	a, err := startAgent(h.log, id, req, h.RingSize, h.prepare, h.register)
	if a == nil {
		return nil, err
	}
	h.mu.Lock()
	h.agents = append(h.agents, a)
	h.byID[a.id] = a
	h.mu.Unlock()
	if err != nil {
		h.terminate(a, 0)
		a.over()
		return nil, err
	}
	return a, nil
}

// agentExited tells every client and ends what the agent left.
func (h *Holder) agentExited(a *agent) {
	h.broadcast(Message{Kind: KindEvent, Event: &Event{Kind: EventExited, Agent: a.info()}})
	h.exitWG.Add(1)
	go func() {
		defer h.exitWG.Done()
		h.terminate(a, h.StopTimeout)
		a.over()
	}()
}

// stopAll stops every agent at once and waits for them.
func (h *Holder) stopAll() {
	h.mu.Lock()
	agents := append([]*agent(nil), h.agents...)
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Add(1)
		go func() { defer wg.Done(); h.terminate(a, h.StopTimeout); a.over() }()
	}
	wg.Wait()
}

// broadcast queues m to every connected client.
func (h *Holder) broadcast(m Message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.conns {
		c.event(m)
	}
}

func (h *Holder) kickReaper() {
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

func (h *Holder) agent(id string) (*agent, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a := h.byID[id]
	if a == nil {
		return nil, fmt.Errorf("no agent %q", id)
	}
	return a, nil
}
