package agent

import (
	"sync"
	"time"

	"github.com/wardenhq/warden/supervisor/session"
)

// Hold is a reason an agent is held: its session parked (its clocks
// stopped, nothing typed, its process group stopped) and any session it
// starts meanwhile parked from its start.
type Hold string

const (
	// HoldAccount: its account is at its usage limit, until the reset its
	// account planned (Accounts).
	HoldAccount Hold = "account"
	// HoldBudget: the team's budget is reached with on_budget = "pause",
	// until a person lets it go on (`warden resume`, the page).
	HoldBudget Hold = "budget"
)

// holds is the set of reasons an agent is held, with when each plans to
// end (zero: when it is released). It is the one owner of the agent's
// park: every reason is added and released through it, and its session is
// told the outcome of all of them — parked while any reason holds, until
// the account's plan — never one reason's view of it.
type holds struct {
	// order is held while the session is told (apply), so that the last
	// word the session hears is the set's last state.
	order sync.Mutex
	mu    sync.Mutex
	set   map[Hold]time.Time
	// overlapWith is the task HoldOverlap waits for (overlap.go).
	overlapWith string
}

// Hold adds reason to the agent's holds (again: a new until) and parks
// its session. It reports whether the reason is new.
func (a *Agent) Hold(reason Hold, until time.Time) bool {
	a.holds.mu.Lock()
	if a.holds.set == nil {
		a.holds.set = map[Hold]time.Time{}
	}
	_, was := a.holds.set[reason]
	a.holds.set[reason] = until
	a.holds.mu.Unlock()
	a.applyHolds()
	return !was
}

// Release ends one reason the agent is held; its session goes on once no
// reason is left. It reports whether reason held it.
func (a *Agent) Release(reason Hold) bool {
	a.holds.mu.Lock()
	_, was := a.holds.set[reason]
	delete(a.holds.set, reason)
	a.holds.mu.Unlock()
	a.applyHolds()
	return was
}

// Held reports whether reason holds the agent.
func (a *Agent) Held(reason Hold) bool {
	a.holds.mu.Lock()
	defer a.holds.mu.Unlock()
	_, ok := a.holds.set[reason]
	return ok
}

// held is whether any reason holds the agent, and until when its account
// plans to go on (zero: no account hold). holds.mu is not held.
func (a *Agent) held() (any bool, until time.Time) {
	a.holds.mu.Lock()
	defer a.holds.mu.Unlock()
	return len(a.holds.set) > 0, a.holds.set[HoldAccount]
}

// applyHolds tells the agent's session the holds as they are now, and
// state.json when the account plans to go on.
func (a *Agent) applyHolds() {
	a.holds.order.Lock()
	defer a.holds.order.Unlock()
	any, until := a.held()
	a.mu.Lock()
	a.pausedUntil = until
	s := a.sess
	a.mu.Unlock()
	if s != nil {
		if any {
			s.Park(until)
		} else {
			s.Unpark()
		}
	}
	a.d.Team.Publish()
}

// holdNew parks a session that starts while the agent is held.
func (a *Agent) holdNew(s *session.Session) {
	a.holds.order.Lock()
	defer a.holds.order.Unlock()
	if any, until := a.held(); any {
		s.Park(until)
	}
}
