package memory

import (
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/supervisor/config"
)

// Why an agent waits its turn (Wait.Reason).
const (
	WaitMaxRunning = "max_running"  // as many agents run as max_running allows
	WaitMemory     = "memory_floor" // starting it would take MemAvailable under memory_floor
	WaitTurn       = "turn"         // others wait before it (first come, first started)
)

// Wait is why an agent waits its turn to start, as admission_waiting says.
type Wait struct {
	Reason     string
	Running    int   // agents running (admitted) now
	MaxRunning int   // 0: no limit
	Ahead      int   // agents waiting before it
	Available  int64 // MemAvailable, bytes (0: not read: no memory_floor)
	Needed     int64 // the footprint its CLI is expected to take
	Reserved   int64 // what the agents running are expected to take still
	Floor      int64
}

// String says it for the agent's state and the log.
func (w Wait) String() string {
	switch w.Reason {
	case WaitMaxRunning:
		return fmt.Sprintf("waits its turn: %s running (max_running %d)", agents(w.Running), w.MaxRunning)
	case WaitMemory:
		s := fmt.Sprintf("waits for memory: %s available, %s needed", config.FormatSize(w.Available), config.FormatSize(w.Needed))
		if w.Reserved > 0 {
			s += fmt.Sprintf(" and %s expected of the agents starting", config.FormatSize(w.Reserved))
		}
		return s + ", memory_floor " + config.FormatSize(w.Floor)
	}
	return fmt.Sprintf("waits its turn: %s before it", agents(w.Ahead))
}

// agents is "1 agent", "2 agents".
func agents(n int) string {
	if n == 1 {
		return "1 agent"
	}
	return fmt.Sprintf("%d agents", n)
}

// Admission decides when an agent may start a session: at most MaxRunning
// at once, and none that would take the machine's MemAvailable under Floor
// — what a session will take being its CLI's footprint (footprint.go),
// plus what the sessions already running are expected to take still.
// Agents are admitted first come, first started: one that waits holds back
// those that came after it, so a large CLI is never starved by small ones.
// With nothing running, one agent starts while MemAvailable is above the
// floor, whatever its expected footprint: the footprint is learned from the
// agents that run, and warden's own agents cannot free the memory it waits
// for.
//
// It is a plain object shared by the team's agents, driven by an injected
// clock and a MemAvailable reader a test replaces, like the restart
// policy.
type Admission struct {
	MaxRunning int   // 0: no limit
	Floor      int64 // bytes; 0: no memory gate
	// Poll is how often a waiting agent reads MemAvailable again (memory
	// freed outside warden wakes nobody); only with a Floor.
	Poll time.Duration
	// MemAvailable reads the machine's available memory (/proc/meminfo).
	MemAvailable func() (int64, error)
	Footprints

	clock clock.Clock
	log   hclog.Logger

	mu      sync.Mutex
	running map[*Ticket]bool
	queue   []*Ticket     // waiting, first come first
	wake    chan struct{} // closed and replaced on every change
	lastAvl int64         // the last MemAvailable read (the page)
	readErr bool          // a failed read was logged
}

// DefaultPoll is how often a waiting agent looks at MemAvailable again.
const DefaultPoll = 2 * time.Second

// NewAdmission returns the gate of a team with max_running and
// memory_floor (0: none), reading /proc/meminfo.
func NewAdmission(maxRunning int, floor int64, clk clock.Clock, log hclog.Logger) *Admission {
	return &Admission{MaxRunning: maxRunning, Floor: floor, Poll: DefaultPoll, MemAvailable: ReadMemAvailable,
		Footprints: NewFootprints(), clock: clk, log: log, running: map[*Ticket]bool{}, wake: make(chan struct{})}
}

// Acquire waits until the agent may start a session of its CLI (profile):
// it returns the agent's ticket, to Release when the session has ended, and
// how long it waited; nil when stop was closed first. waiting is called
// once, when it must wait, with why.
func (ad *Admission) Acquire(agent, profile string, stop <-chan struct{}, waiting func(Wait)) (*Ticket, time.Duration) {
	t := &Ticket{Agent: agent, Profile: profile, ad: ad}
	began := ad.clock.Now()
	ad.mu.Lock()
	ad.queue = append(ad.queue, t)
	ad.mu.Unlock()
	told := false
	for {
		ad.mu.Lock()
		ad.admitLocked()
		if ad.running[t] {
			ad.mu.Unlock()
			return t, t.admitted.Sub(began)
		}
		_, w := ad.verdictLocked(t)
		wake := ad.wake
		ad.mu.Unlock()
		if !told {
			told = true
			waiting(w)
		}
		var poll <-chan time.Time
		var timer clock.Timer
		if ad.Floor > 0 && ad.Poll > 0 {
			timer = ad.clock.NewTimer(ad.Poll)
			poll = timer.C()
		}
		select {
		case <-wake:
		case <-poll:
		case <-stop:
			ad.mu.Lock()
			ad.dequeueLocked(t)
			delete(ad.running, t) // admitted meanwhile by another: not started
			ad.broadcastLocked()  // the next in line may go
			ad.mu.Unlock()
			if timer != nil {
				timer.Stop()
			}
			return nil, 0
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// admitLocked admits the agents that wait, first come first, as long as
// each fits: whoever holds the lock admits for all (an agent that fits is
// never told to wait behind one that is being admitted).
func (ad *Admission) admitLocked() {
	admitted := false
	for len(ad.queue) > 0 {
		t := ad.queue[0]
		if ok, _ := ad.verdictLocked(t); !ok {
			break
		}
		ad.queue = ad.queue[1:]
		ad.running[t] = true
		t.admitted = ad.clock.Now()
		admitted = true
	}
	if admitted {
		ad.broadcastLocked()
	}
}

// verdictLocked says whether t may start now, and if not, why.
func (ad *Admission) verdictLocked(t *Ticket) (bool, Wait) {
	w := Wait{Running: len(ad.running), MaxRunning: ad.MaxRunning, Floor: ad.Floor}
	for _, q := range ad.queue {
		if q == t {
			break
		}
		w.Ahead++
	}
	full := ad.MaxRunning > 0 && w.Running >= ad.MaxRunning
	if ad.Floor > 0 {
		avail, err := ad.MemAvailable()
		switch {
		case err != nil:
			if !ad.readErr {
				ad.readErr = true
				ad.log.Error("MemAvailable cannot be read: memory_floor holds no agent back", "error", err)
			}
		default:
			ad.lastAvl = avail
			w.Available = avail
			w.Needed, _ = ad.estimateLocked(t.Profile, ad.running, ad.clock.Now())
			w.Reserved = ad.reservedLocked(ad.running, ad.clock.Now())
			fits := avail-w.Reserved-w.Needed >= ad.Floor
			if !full && !fits && !(w.Running == 0 && avail > ad.Floor) {
				w.Reason = WaitMemory
				return false, w
			}
		}
	}
	if full {
		w.Reason = WaitMaxRunning
		return false, w
	}
	if w.Ahead > 0 {
		w.Reason = WaitTurn
		return false, w
	}
	return true, w
}

func (ad *Admission) dequeueLocked(t *Ticket) {
	for i, q := range ad.queue {
		if q == t {
			ad.queue = append(ad.queue[:i], ad.queue[i+1:]...)
			return
		}
	}
}

func (ad *Admission) broadcastLocked() {
	close(ad.wake)
	ad.wake = make(chan struct{})
}

// release ends t's session: its slot is free, its peak is learned.
func (ad *Admission) release(t *Ticket) {
	ad.mu.Lock()
	defer ad.mu.Unlock()
	if !ad.running[t] {
		return
	}
	delete(ad.running, t)
	ad.learnLocked(t, ad.clock.Now())
	ad.broadcastLocked()
}

// Counts are the agents running and waiting now, and the last MemAvailable
// read (0: none yet).
func (ad *Admission) Counts() (running, waiting int, available int64) {
	ad.mu.Lock()
	defer ad.mu.Unlock()
	return len(ad.running), len(ad.queue), ad.lastAvl
}

// Fields are admission_waiting's.
func (w Wait) Fields() []any {
	kv := []any{"reason", w.Reason, "running", w.Running}
	if w.MaxRunning > 0 {
		kv = append(kv, "max_running", w.MaxRunning)
	}
	if w.Ahead > 0 {
		kv = append(kv, "ahead", w.Ahead)
	}
	if w.Floor > 0 && w.Available > 0 {
		kv = append(kv, "memory_available", w.Available, "needed", w.Needed, "reserved", w.Reserved, "memory_floor", w.Floor)
	}
	return kv
}
