package notify

import (
	"bytes"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	names "github.com/wardenhq/warden/supervisor/event"
)

// wait is an agent waiting on a dialog that a rule with renotify announces
// again until the wait ends.
type wait struct {
	ev    Event
	since time.Time
	again int
	timer clock.Timer
}

// waitKey is one rule's wait of one agent.
type waitKey struct {
	rule  int
	agent string
}

// waitEnds are the events after which an agent no longer waits on the
// dialog it was announced for: answered, gone, or its session over.
var waitEnds = map[string]bool{
	names.AgentResumed: true, names.DialogAnswered: true, names.DialogDenied: true,
	names.AgentExited: true, names.AgentFailed: true, names.AgentRestarted: true,
	names.AgentStalled: true, names.AgentForceTerminated: true, names.TeamDone: true,
}

// track starts or ends the waits ev concerns; n.mu is held.
func (n *Notifier) track(ev Event, now time.Time) {
	switch {
	case ev.Name == names.AgentWaiting && ev.Agent != "":
		for i := range n.rules {
			r := &n.rules[i]
			if r.Renotify <= 0 || !r.Matches(ev.Name) {
				continue
			}
			k := waitKey{rule: i, agent: ev.Agent}
			n.endWait(k)
			ev := ev
			ev.JSON = bytes.Clone(ev.JSON)
			w := &wait{ev: ev, since: now}
			n.waits[k] = w
			w.timer = n.clk.AfterFunc(r.Renotify, func() { n.renotify(k, w) })
		}
	case waitEnds[ev.Name]:
		for k := range n.waits {
			if k.agent == ev.Agent || ev.Name == names.TeamDone {
				n.endWait(k)
			}
		}
	}
}

// endWait forgets a wait; n.mu is held.
func (n *Notifier) endWait(k waitKey) {
	if w, ok := n.waits[k]; ok {
		w.timer.Stop()
		delete(n.waits, k)
	}
}

// renotify announces w again (past min_interval: the rule asked for it)
// and arms the next time, while it is still the agent's wait.
func (n *Notifier) renotify(k waitKey, w *wait) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed || n.waits[k] != w {
		return
	}
	now := n.clk.Now()
	w.again++
	n.enqueue(k.rule, job{rule: k.rule, ev: w.ev, again: w.again, waited: now.Sub(w.since)})
	w.timer = n.clk.AfterFunc(n.rules[k.rule].Renotify, func() { n.renotify(k, w) })
}
