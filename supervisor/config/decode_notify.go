package config

// notify validates one [[notify]] table.
func (d *decoder) notify(t table) Notify {
	t.unknown("events", "command", "timeout", "min_interval")
	n := NotifyDefaults()
	n.Pos = d.ix.at(t.path)
	n.Events = d.notifyEvents(t)
	if argv, present, _ := t.argv("command"); present {
		n.Command = argv
	} else {
		d.errorf(t.path, "missing key %q%s", "command", t.where)
	}
	n.Timeout, _ = t.duration("timeout", n.Timeout)
	n.MinInterval, _ = t.durationOrZero("min_interval", n.MinInterval)
	return n
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
