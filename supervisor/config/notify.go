package config

import (
	"github.com/wardenhq/warden/supervisor/event"

	"slices"
	"time"
)

// Notify is one [[notify]] table: a command run, or a POST made to a url,
// when one of its events is written to events.jsonl.
type Notify struct {
	// Events are the event names that trigger the command, or the single
	// entry NotifyAll ("*") for every event; never empty.
	Events []string
	// Command is the argv run (never through a shell) with the event's JSON
	// on stdin and WARDEN_EVENT, WARDEN_TEAM, WARDEN_AGENT, WARDEN_TASK in
	// its environment. A rule has either Command or URL.
	Command []string
	// URL is where a POST announces the event (supervisor/notify), its body
	// in Format: NotifyNtfy, NotifyJSON (the default) or NotifySlack.
	URL    string
	Format string
	// Renotify: an agent still waiting on a dialog is announced again this
	// long after the last time, until it is answered (0: once).
	Renotify time.Duration
	// Timeout bounds one run of the command; then its process group is
	// killed; default 30s.
	Timeout time.Duration
	// MinInterval: at most one run per (event, agent) in this time, the
	// events held back counted in the next run; default 10m; 0 for no limit.
	MinInterval time.Duration
	Pos         Position // the [[notify]] header
}

// NotifyAll in a [[notify]] table's events matches every event.
const NotifyAll = "*"

// Formats of a url's POST.
const (
	NotifyNtfy  = "ntfy"  // ntfy.sh: the body is the message; Title, Tags, Click, Priority headers
	NotifyJSON  = "json"  // one JSON object (supervisor/notify.Message)
	NotifySlack = "slack" // a Slack incoming webhook: {"text", "blocks"}
)

// AgentWaitingEvent is the event renotify repeats.
const AgentWaitingEvent = event.AgentWaiting

// Matches reports whether the rule runs for the event named event.
func (n *Notify) Matches(event string) bool {
	for _, e := range n.Events {
		if e == NotifyAll || e == event {
			return true
		}
	}
	return false
}

// eventNames are the events warden writes to events.jsonl (DESIGN §5), the
// names a [[notify]] table may list.
var eventNames = event.Names

// EventNames returns the names of the events warden writes, sorted.
func EventNames() []string {
	names := slices.Clone(eventNames)
	slices.Sort(names)
	return names
}

// KnownEvent reports whether name is an event warden writes.
func KnownEvent(name string) bool { return slices.Contains(eventNames, name) }
