package config

import (
	"net/url"
	"slices"
	"strings"
)

// notify validates one [[notify]] table: events, and either a command or a
// url (with its format).
func (d *decoder) notify(t table) Notify {
	t.unknown("events", "command", "url", "format", "timeout", "min_interval", "renotify")
	n := NotifyDefaults()
	n.Pos = d.ix.at(t.path)
	n.Events = d.notifyEvents(t)
	argv, hasCmd, _ := t.argv("command")
	_, hasURL := t.vals["url"]
	switch {
	case hasCmd && hasURL:
		d.errorf(t.key("url"), "a [[notify]] has either command or url, not both")
	case hasCmd:
		n.Command = argv
	case hasURL:
		n.URL = d.notifyURL(t)
	default:
		d.errorf(t.path, "missing key %q or %q%s", "command", "url", t.where)
	}
	if _, ok := t.vals["format"]; ok && !hasURL {
		d.errorf(t.key("format"), "format is the body of a url's POST: this [[notify]] has no url")
	} else if hasURL {
		n.Format = t.oneOf("format", NotifyJSON, NotifyNtfy, NotifyJSON, NotifySlack)
	}
	n.Timeout, _ = t.duration("timeout", n.Timeout)
	n.MinInterval, _ = t.durationOrZero("min_interval", n.MinInterval)
	n.Renotify, _ = t.durationOrZero("renotify", 0)
	if n.Renotify > 0 && n.Events != nil && !n.Matches(AgentWaitingEvent) {
		d.errorf(t.key("renotify"), "renotify announces an agent still waiting again: events must list %q (or be \"*\")", AgentWaitingEvent)
	}
	return n
}

// notifyURL validates url: an absolute http or https address with a host.
func (d *decoder) notifyURL(t table) string {
	s, ok := t.nonEmpty("url")
	if !ok {
		return ""
	}
	u, err := url.Parse(strings.TrimSpace(s))
	switch {
	case err != nil:
		// url.Parse's error quotes the address, which may hold a secret.
		d.errorf(t.key("url"), "url is not a web address")
		return ""
	case !slices.Contains([]string{"http", "https"}, u.Scheme):
		d.errorf(t.key("url"), "url must start with https:// or http://")
		return ""
	case u.Host == "":
		d.errorf(t.key("url"), "url has no host")
		return ""
	}
	return u.String()
}

// notifyEvents validates events: a non-empty array of known event names
// without repeats, or "*" alone (as the array's only entry or as a string).
func (d *decoder) notifyEvents(t table) []string {
	v, present := t.vals["events"]
	if !present {
		d.errorf(t.path, "missing key %q%s", "events", t.where)
		return nil
	}
	if s, isStr := v.(string); isStr {
		if s == NotifyAll {
			return []string{NotifyAll}
		}
		d.errorf(t.key("events"), "events must be an array of event names or \"*\", not the string %q", s)
		return nil
	}
	list, _, ok := t.strings("events")
	if !ok {
		return nil
	}
	if len(list) == 0 {
		d.errorf(t.key("events"), "events must not be empty (name events, or \"*\" for all)")
		return nil
	}
	seen := make(map[string]bool, len(list))
	for i, e := range list {
		at := pathIndex(t.key("events"), i)
		switch {
		case seen[e]:
			d.errorf(at, "events lists %q twice", e)
		case e == NotifyAll && len(list) > 1:
			d.errorf(at, "\"*\" must be the only entry of events")
		case e != NotifyAll && !KnownEvent(e):
			d.errorf(at, "unknown event %q", e)
		}
		seen[e] = true
	}
	return list
}
