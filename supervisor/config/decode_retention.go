package config

import "time"

// Retention is the [retention] table: which checkpoint records (and team
// handoffs) the history keeps. A record is kept when any rule keeps it.
type Retention struct {
	// KeepStatusChanges keeps every record whose status differs from the
	// task's record before it.
	KeepStatusChanges bool
	// KeepTeamCheckpoints keeps every record of a team checkpoint.
	KeepTeamCheckpoints bool
	// KeepLast keeps the newest N records of each task (and N handoffs).
	KeepLast int
	// KeepFor keeps everything younger than this.
	KeepFor time.Duration
}

// Defaults of [retention].
const (
	DefaultKeepLast = 20
	DefaultKeepFor  = 7 * 24 * time.Hour
)

// RetentionDefaults keeps every status change and team checkpoint, the last
// 20 records of each task, and everything for 7 days.
func RetentionDefaults() Retention {
	return Retention{KeepStatusChanges: true, KeepTeamCheckpoints: true, KeepLast: DefaultKeepLast, KeepFor: DefaultKeepFor}
}

// retention validates the [retention] table.
func (d *decoder) retention(top table) Retention {
	r := RetentionDefaults()
	v, present := top.vals["retention"]
	if !present {
		return r
	}
	m, ok := v.(map[string]any)
	if !ok {
		d.errorf("retention", "retention must be a table ([retention]), not %s", tomlType(v))
		return r
	}
	t := table{d: d, vals: m, path: "retention", where: " in [retention]"}
	t.unknown("keep_status_changes", "keep_team_checkpoints", "keep_last", "keep_for")
	r.KeepStatusChanges = t.boolean("keep_status_changes", r.KeepStatusChanges)
	r.KeepTeamCheckpoints = t.boolean("keep_team_checkpoints", r.KeepTeamCheckpoints)
	r.KeepLast = t.integer("keep_last", int64(r.KeepLast), 1, 1<<20, "between 1 and 1048576")
	r.KeepFor, _ = t.durationOrZero("keep_for", r.KeepFor)
	return r
}

// boolean reads a true/false key.
func (t table) boolean(k string, def bool) bool {
	v, present := t.vals[k]
	if !present {
		return def
	}
	b, ok := v.(bool)
	if !ok {
		t.d.errorf(t.key(k), "%s must be true or false, not %s", k, tomlType(v))
		return def
	}
	return b
}
