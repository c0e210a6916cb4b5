// Package holder keeps agents' terminals alive while no warden runs: a
// small server (meant to run as `warden hold`, in a session of its own)
// that starts each agent under a pty, stays its parent and, as a child
// subreaper, the parent of what it orphans; drains every master no client
// holds into a bounded ring (a pty holds 13–18 KiB, then its writer blocks
// and a Node CLI's event loop with it); hands masters to a client over
// its unix socket (SCM_RIGHTS); records exit statuses for any client,
// then or later; and stops every agent itself once no client came back
// within OrphanTimeout. Client is warden's side. The protocol is in
// protocol.go.
//
// The handover rule. A master is read by exactly one side at a time:
// the holder's drain, or the connection that adopted it. Adopt pauses the
// drain and waits until it is out of its read, then sends what the ring
// holds and the master in one message: nothing the holder read is left
// out, and the client reads from there. The client reads until its
// connection ends; the holder drains again from the moment it sees the
// connection end. A client closes its masters before its connection
// (Client.Close does), so the two never read at once; a byte a dying
// client had read but not yet handled is lost, and that is the only loss.
//
// See docs/design-holder.md for what survives what, and what is not done.
package holder

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
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
	DefaultAdoptWait     = 2 * time.Second
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
	// AdoptWait is how long an adopt waits for a master another connection
	// holds: a warden that died a moment ago may have its end read after
	// the next warden's adopt.
	AdoptWait time.Duration

	log  hclog.Logger
	self int

	mu       sync.Mutex
	agents   []*agent // in start order
	byID     map[string]*agent
	conns    map[*conn]bool
	orphanGo uint64 // bumped at each connect: a stale orphan timer does nothing
	orphaned chan struct{}
	orphanCl sync.Once
	ready    chan struct{}
	closed   bool

	rmu      sync.Mutex // the reaper's maps
	leaders  map[int]*agent
	sessions map[int]*agent // by pid (= sid = pgid)
	tags     map[string]*agent
	strays   map[int]uint64 // tagged children, by pid, with their start times
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
		ready:    make(chan struct{}),
		leaders:  map[int]*agent{},
		sessions: map[int]*agent{},
		tags:     map[string]*agent{},
		strays:   map[int]uint64{},
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
	close(h.ready)

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
	// What was killed last may be waitable only a moment later.
	waitUntil(time.Now().Add(killTaggedWait), func() bool {
		h.kickReaper()
		h.rmu.Lock()
		defer h.rmu.Unlock()
		return len(h.strays) == 0
	})
	close(stopReaper)
	<-reaperDone
	h.exitWG.Wait()
	for _, a := range h.agents { // each drain reads to the end of output, bounded by drainMax
		select {
		case <-a.closed:
		case <-time.After(2 * drainMax):
			a.log.Warn("the drain did not end")
		}
	}
	if result == ErrOrphaned {
		h.removeBoxes()
	}
	_ = os.Remove(h.Socket) // the listener removed it, unless it was replaced
	h.log.Info("holder ended", "agents", len(h.agents))
	return result
}

// removeBoxes removes the cgroups the dead warden made for the agents the
// holder stopped alone (each agent's, then the warden's base above it once
// empty): no warden is left to, and the next one in the same state dir
// finds them only if it comes. A group not empty is left (rmdir refuses).
func (h *Holder) removeBoxes() {
	for _, a := range h.agents {
		if a.cgroup == "" {
			continue
		}
		dirs := []string{a.cgroup}
		if base := filepath.Dir(a.cgroup); strings.HasPrefix(filepath.Base(base), "warden.") {
			dirs = append(dirs, base) // the dead warden's base (memory.KillStaleBoxes' warden.PID), never a group it was given
		}
		for _, dir := range dirs {
			if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
				h.log.Debug("a dead warden's cgroup left", "dir", dir, "error", err)
				break
			}
		}
	}
}

// Ready is closed once Serve listens: a client may dial.
func (h *Holder) Ready() <-chan struct{} { return h.ready }

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
	if h.AdoptWait <= 0 {
		h.AdoptWait = DefaultAdoptWait
	}
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
