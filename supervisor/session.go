package supervisor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/config"
	"github.com/wardenhq/warden/supervisor/hookbus"
)

// outcome is how a session ended.
type outcome int

const (
	outExited  outcome = iota // the process exited on its own
	outStopped                // the team stopped it
	outStalled                // stale_failure: warden stopped it, to restart from its checkpoint
	outDone                   // its task is complete; warden stopped it
)

// session is one process of an agent working on one task (or, for an agent
// with neither task nor prompt, just running): it types the first prompt,
// reads the screen, asks for checkpoints on the monitor's timer and records
// every answer.
type session struct {
	a    *agent
	g    *generation
	task *config.Task // nil: no task, no checkpoints
	// lastAsked: the team asked for a last checkpoint; the next one answers it.
	lastAsked bool
	// banner is a usage-limit banner seen once on the screen, at bannerAt.
	banner    string
	bannerAt  time.Time
	oldBanner string // on screen when the last pause ended: not a new limit
	// epoch counts the requests typed; recorded maps a block's content to
	// the epoch it was recorded in, so that one answer seen on the screen and
	// through a hook is one record.
	epoch    atomic.Int32 // advanced by the typist as it types each request
	recorded map[string]int
	lastKey  string // content of the latest record
	// taskStarted is when work on the task began (started_at of its records).
	taskStarted time.Time
	id          string // session_id: new for every process
	attempt     int
	prof        *profile.Profile
	modes       modes
	proc        *runner.Process
	reader      *protocol.Reader
	mon         *monitor
	started     time.Time
	lastOut     atomic.Int64 // unix nanos of the last output
	settle      *settler

	typing     chan string        // texts for the typist
	stopTyping context.CancelFunc // ends a submission in flight
	term       io.Writer          // the user's terminal (warden wrap), or nil

	mu      sync.Mutex
	pending []readerEvent // from the reader's callbacks, for the session loop
	notify  chan struct{}
}

// readerEvent is one callback of the protocol reader.
type readerEvent struct {
	settled  bool             // the screen has been quiet: look for a banner
	hook     *hookbus.Message // from the CLI's own hooks
	block    *protocol.Block
	reason   string
	text     string
	complete bool
}

func newSessionID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Write takes the agent's raw output from the runner's reader goroutine.
func (s *session) Write(p []byte) (int, error) {
	if s.term != nil {
		s.term.Write(p)
	}
	s.modes.Write(p)
	s.lastOut.Store(time.Now().UnixNano())
	s.reader.Write(p)
	s.settle.poke()
	return len(p), nil
}

func (s *session) push(e readerEvent) {
	s.mu.Lock()
	s.pending = append(s.pending, e)
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

func (s *session) take() []readerEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	ev := s.pending
	s.pending = nil
	return ev
}

// lastOutput is the time of the last output, or the start.
func (s *session) lastOutput() time.Time {
	if n := s.lastOut.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return s.started
}

// typeText queues text for the typist: submitting may pause (a paste, then
// Enter as a write of its own), and the session loop must keep recording
// answers meanwhile.
func (s *session) typeText(text string) {
	s.typing <- text
}

// typist submits queued texts in order until the session ends; the first
// waits until the CLI is at its input prompt.
func (s *session) typist(ctx context.Context) {
	first := true
	for text := range s.typing {
		if first {
			s.waitReady(ctx)
			first = false
		}
		s.submit(ctx, text)
	}
}

// readyTimeout bounds the wait for a CLI's first input prompt; after it the
// first prompt is typed anyway (and Submit verifies it).
const readyTimeout = 60 * time.Second

// waitReady waits until the profile sees the CLI ready for input.
func (s *session) waitReady(ctx context.Context) {
	deadline := time.Now().Add(readyTimeout)
	for !s.prof.Ready(s.screen()) {
		if time.Now().After(deadline) {
			s.a.log.Warn("the CLI never showed its input prompt; typing anyway", "waited", readyTimeout)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// screen is the session as the profile sees it.
func (s *session) screen() profile.Screen {
	return screenView{rows: s.reader.Rows(), bracketed: s.modes.bracketed()}
}

// submit types text the profile's way (bracketed paste, a pause, Enter as a
// write of its own, verified and retried) and tells the reader first, so
// that its echo is never read as an answer. The user's keystrokes (warden
// wrap) wait meanwhile.
func (s *session) submit(ctx context.Context, text string) {
	s.a.inputMu.Lock()
	defer s.a.inputMu.Unlock()
	s.reader.Typed(text)
	if strings.HasPrefix(text, protocol.RequestPrefix) {
		// A new request starts a new epoch now, when the reader learns of
		// it too, not when the monitor queued it.
		s.epoch.Add(1)
	}
	if err := s.prof.Submit(ctx, s.proc, s.screen, text); err != nil && ctx.Err() == nil {
		s.a.log.Warn("submission not confirmed", "error", err)
	}
}

// settler calls fn once output has been quiet for d: the reader then parses
// what a person would see. One timer per session, re-armed only when it fires
// early, so a flood of output costs an atomic store per chunk.
type settler struct {
	d     time.Duration
	fn    func()
	last  atomic.Int64
	armed atomic.Bool
	timer *time.Timer
	mu    sync.Mutex
}

func newSettler(d time.Duration, fn func()) *settler {
	return &settler{d: d, fn: fn}
}

func (st *settler) poke() {
	st.last.Store(time.Now().UnixNano())
	if st.armed.CompareAndSwap(false, true) {
		st.mu.Lock()
		st.timer = time.AfterFunc(st.d, st.fire)
		st.mu.Unlock()
	}
}

func (st *settler) fire() {
	if since := time.Since(time.Unix(0, st.last.Load())); since < st.d {
		st.mu.Lock()
		st.timer.Reset(st.d - since)
		st.mu.Unlock()
		return
	}
	st.armed.Store(false)
	st.fn()
}

func (st *settler) stop() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.timer != nil {
		st.timer.Stop()
	}
}
