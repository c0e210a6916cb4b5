// Package notify runs the [[notify]] commands of a team file, and makes
// the POSTs of its [[notify]] urls, when events are written (DESIGN §3,
// issue 9 "Notifications", issue 25 "Push without a script").
//
// A url rule POSTs a Message (formats.go) in its format — ntfy, json or
// slack — through a queue and a goroutine of its own, retried with backoff
// and bounded (webhook.go); renotify announces an agent still waiting on a
// dialog again until it is answered (renotify.go).
//
// A rule matches an event by name (or "*"). Its command is an argv, never a
// shell; it gets the event's JSON line on stdin and WARDEN_EVENT, WARDEN_TEAM,
// WARDEN_AGENT, WARDEN_TASK and WARDEN_SUPPRESSED added to warden's own
// environment. Notify never blocks its caller: notifications go through a
// bounded queue to a few workers, and a full queue drops (and counts) them.
// Each run has the rule's timeout, after which its whole process group is
// killed; when the command exits, whatever it started is killed too — in
// its group, or escaped from it (setsid, a double fork): every process
// carrying the run's runner tag (runner.KillTagged). Close bounds how long
// the runs still going may take. Failures are logged, never fatal.
//
// Rate limit: at most one run per (rule, event, agent) per min_interval, on
// the injected clock. Notifications held back (by the interval or a full
// queue) are counted, and the next run for that key carries the count:
// WARDEN_SUPPRESSED=N and "suppressed": N in the JSON.
package notify

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/runner"
	"github.com/wardenhq/warden/supervisor/config"
)

// Event is one event as written to events.jsonl.
type Event struct {
	Name  string // e.g. "agent_waiting"
	Agent string // "" when the event has none
	Task  string // "" when the event has none
	JSON  []byte // the event's line exactly as written, one JSON object
}

// Stats counts what the notifier did since New.
type Stats struct {
	Started    int // commands started
	Failed     int // runs that did not start, exited non-zero or timed out
	TimedOut   int // runs killed at their timeout (also counted in Failed)
	Suppressed int // notifications held back by min_interval
	Dropped    int // notifications dropped: queue full, or still queued at Close
	Posted     int // url POSTs that got through
	Retried    int // url POSTs tried again after a failure
}

// Sizes of the worker pool and the queue in front of it.
const (
	defaultWorkers = 4
	defaultQueue   = 128
)

// Notifier runs notify rules for events. Its methods are safe for
// concurrent use.
type Notifier struct {
	log   hclog.Logger
	team  string
	rules []config.Notify
	clk   clock.Clock
	env   []string // warden's environment at New, without the variables set per run

	queue   chan job
	posters map[int]*poster    // url rules by index
	abort   chan struct{}      // closed when Close gives up waiting: kill every run
	posts   context.Context    // every POST's: ended by Close's abort
	cancel  context.CancelFunc // ends posts
	wg      sync.WaitGroup

	mu        sync.Mutex
	closed    bool
	limit     *limiter
	stats     Stats
	burst     int          // notifications dropped since the queue was last not full
	afterRun  func(result) // tests: called after every run
	onPost    func(job, error)
	waits     map[waitKey]*wait // agents waiting, for rules with renotify
	page      string            // the team's page, linked from messages
	dialogs   func(agent string) string
	box       func(label string) runner.CommandBox // nil: commands run unboxed
	closeOnce sync.Once
	abortOnce sync.Once
}

// job is one run to do, or one POST.
type job struct {
	rule       int
	ev         Event
	suppressed int
	again      int           // renotify: announcements of this wait before
	waited     time.Duration // renotify: how long the agent has waited
	dialog     string        // agent_waiting: the dialog's text when the POST is made (refine.go)
}

// New returns a notifier for the team's rules, running its workers; Close
// stops them. Rules without events or command are ignored (config never
// yields them).
func New(logger hclog.Logger, team string, rules []config.Notify, clk clock.Clock) *Notifier {
	return newNotifier(logger, team, rules, clk, defaultWorkers, defaultQueue)
}

func newNotifier(logger hclog.Logger, team string, rules []config.Notify, clk clock.Clock, workers, queue int) *Notifier {
	n := &Notifier{
		log:   logger.Named("notify"),
		team:  team,
		clk:   clk,
		env:   baseEnv(os.Environ()),
		queue: make(chan job, queue),
		abort: make(chan struct{}),
		limit: newLimiter(),
		waits: make(map[waitKey]*wait),
	}
	n.posts, n.cancel = context.WithCancel(context.Background())
	for _, r := range rules {
		if len(r.Events) == 0 || (r.URL == "" && (len(r.Command) == 0 || r.Command[0] == "")) {
			n.log.Warn("ignoring notify rule without events, or without command or url", "rule", r.Pos.String())
			continue
		}
		if r.Timeout <= 0 {
			r.Timeout = config.DefaultNotifyTimeout
		}
		n.rules = append(n.rules, r)
	}
	n.posters = make(map[int]*poster)
	for i, r := range n.rules {
		if r.URL != "" {
			p := &poster{rule: i, queue: make(chan job, postQueue)}
			n.posters[i] = p
			n.wg.Add(1)
			go n.postWorker(p)
		}
	}
	for range workers {
		n.wg.Add(1)
		go n.worker()
	}
	return n
}

// Notify queues a run of every rule that matches ev and is not held back by
// its min_interval. It never blocks: when the queue is full the notification
// is dropped and counted (and logged once per burst of drops). ev.JSON is
// copied: the caller may reuse it. After Close it does nothing.
func (n *Notifier) Notify(ev Event) {
	var burstStart, burstEnd int
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return
	}
	now := n.clk.Now()
	n.track(ev, now)
	cloned := false
	for i := range n.rules {
		r := &n.rules[i]
		if !r.Matches(ev.Name) {
			continue
		}
		k := key{rule: i, event: ev.Name, agent: ev.Agent}
		if q := n.queueOf(i); len(q) == cap(q) {
			n.limit.hold(k)
			n.stats.Dropped++
			if n.burst == 0 {
				burstStart = 1
			}
			n.burst++
			continue
		}
		send, suppressed := n.limit.take(k, r.MinInterval, now)
		if !send {
			n.stats.Suppressed++
			continue
		}
		if n.burst > 0 {
			burstEnd, n.burst = n.burst, 0
		}
		if !cloned { // the caller may reuse its buffer once Notify returns
			ev.JSON, cloned = bytes.Clone(ev.JSON), true
		}
		n.queueOf(i) <- job{rule: i, ev: ev, suppressed: suppressed} // room checked above, under mu
	}
	n.mu.Unlock()
	if burstStart > 0 {
		n.log.Warn("notify queue full: dropping notifications until it drains", "event", ev.Name, "agent", ev.Agent)
	}
	if burstEnd > 0 {
		n.log.Warn("notify queue drained", "dropped", burstEnd)
	}
}

// queueOf is the queue of rule i's jobs: its poster's for a url, else the
// commands'.
func (n *Notifier) queueOf(i int) chan job {
	if p, ok := n.posters[i]; ok {
		return p.queue
	}
	return n.queue
}

// enqueue queues j for rule i unless its queue is full (then it is
// dropped and counted); n.mu is held.
func (n *Notifier) enqueue(i int, j job) {
	select {
	case n.queueOf(i) <- j:
	default:
		n.stats.Dropped++
	}
}

// SetPage makes every message link to the team's page (warden run --http):
// its address, never its token.
func (n *Notifier) SetPage(url string) {
	n.mu.Lock()
	n.page = url
	n.mu.Unlock()
}

func (n *Notifier) link() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.page
}

// Stats returns the counts so far.
func (n *Notifier) Stats() Stats {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.stats
}

// Close stops taking notifications, lets the queued and running ones finish
// until ctx is done, then kills the running commands (their process groups)
// and drops what is still queued. It returns when every worker is gone; the
// error says what had to be killed or dropped.
func (n *Notifier) Close(ctx context.Context) error {
	n.closeOnce.Do(func() {
		n.mu.Lock()
		n.closed = true
		close(n.queue)
		for _, p := range n.posters {
			close(p.queue)
		}
		for k := range n.waits {
			n.endWait(k)
		}
		n.mu.Unlock()
	})
	done := make(chan struct{})
	go func() { n.wg.Wait(); close(done) }()
	select {
	case <-done:
		n.cancel()
		return nil
	case <-ctx.Done():
	}
	select {
	case <-done: // finished as ctx ended: nothing to kill
		return nil
	default:
	}
	before := n.Stats().Dropped
	n.abortOnce.Do(func() { close(n.abort); n.cancel() })
	<-done
	if dropped := n.Stats().Dropped - before; dropped > 0 {
		n.log.Warn("notifications still queued at close were dropped", "dropped", dropped)
	}
	return fmt.Errorf("close notifier: running commands killed: %w", ctx.Err())
}

// worker runs jobs until the queue is closed and drained; after an abort it
// drops the rest.
func (n *Notifier) worker() {
	defer n.wg.Done()
	for j := range n.queue {
		select {
		case <-n.abort:
			n.mu.Lock()
			n.stats.Dropped++
			n.mu.Unlock()
			continue
		default:
		}
		n.finish(n.run(j))
	}
}
