package notify

import (
	"encoding/json"
	"time"

	"github.com/wardenhq/warden/runner"
	names "github.com/wardenhq/warden/supervisor/event"
)

// readGrace is how long a POST for agent_waiting waits for the dialog's
// text off the screen when the event came before it: the CLI's status
// report or its hook can say it waits some 300 ms before the screen
// settles (its text then is "dialog open", or none at all).
const readGrace = 600 * time.Millisecond

// SetBox makes every command run in a box of its own (sandbox = "box"):
// f makes it, and the run's end closes it, killing all the command
// started.
func (n *Notifier) SetBox(f func(label string) runner.CommandBox) {
	n.mu.Lock()
	n.box = f
	n.mu.Unlock()
}

// SetDialogs gives the notifier the text of the dialog each agent waits on
// now ("" none), as warden ps shows it: a POST for agent_waiting, and each
// renotify, tells the dialog's question as the screen has it.
func (n *Notifier) SetDialogs(f func(agent string) string) {
	n.mu.Lock()
	n.dialogs = f
	n.mu.Unlock()
}

// dialogText is the dialog's text for j's message: the agent's dialog now
// when it differs from the event's (read off the screen since), after up
// to readGrace for the first announcement; "" to keep the event's.
func (n *Notifier) dialogText(j job) string {
	n.mu.Lock()
	f := n.dialogs
	n.mu.Unlock()
	if f == nil || j.ev.Name != names.AgentWaiting || j.ev.Agent == "" {
		return ""
	}
	var ev names.Waiting
	_ = json.Unmarshal(j.ev.JSON, &ev)
	deadline := n.clk.Now().Add(readGrace)
	if ev.OnScreen {
		deadline = n.clk.Now() // the screen's text already
	}
	for {
		now := f(j.ev.Agent)
		if now == "" || now != ev.Text || j.again > 0 || n.clk.Now().After(deadline) {
			return now
		}
		select {
		case <-n.abort:
			return now
		case <-n.clk.After(25 * time.Millisecond):
		}
	}
}
