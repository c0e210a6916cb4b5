package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// sizeUnits maps the units of a size string, in lower case, to bytes.
var sizeUnits = map[string]int64{
	"b": 1, "kb": KB, "mb": MB, "gb": GB, "kib": KiB, "mib": MiB, "gib": GiB,
}

// ParseSize parses a size such as "50MB", "512KB" or "1GiB" into bytes: a
// whole number, optional blanks and a unit (B, KB, MB, GB in powers of 1000;
// KiB, MiB, GiB in powers of 1024; letter case ignored).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	unit, ok := sizeUnits[strings.ToLower(strings.TrimSpace(t[i:]))]
	if i == 0 || !ok {
		return 0, fmt.Errorf("invalid size %q (want a whole number and a unit, such as \"50MB\", \"512KB\" or \"1GiB\")", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil || n > math.MaxInt64/unit {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return n * unit, nil
}

// FormatSize is n bytes as a person reads it: in the unit it is a whole
// number of, as a team file writes it ("4 GiB", "200 MB"), else in powers
// of 1024 as /proc/meminfo and free(1) count ("1.4 GiB", "12 KiB").
func FormatSize(n int64) string {
	abs := n
	if abs < 0 {
		abs = -abs
	}
	for _, u := range []struct {
		size int64
		name string
	}{{GiB, "GiB"}, {GB, "GB"}, {MiB, "MiB"}, {MB, "MB"}} {
		if abs >= u.size && abs%u.size == 0 && (abs/u.size < 1000 || u.size >= GB) {
			return strconv.FormatInt(n/u.size, 10) + " " + u.name
		}
	}
	if abs < KiB {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, i := float64(n), -1
	for (v >= 1024 || v <= -1024) && i < 3 {
		v /= 1024
		i++
	}
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + " " + []string{"KiB", "MiB", "GiB", "TiB"}[i]
}

// parseClock parses "HH:MM", 00:00 to 23:59, two digits each.
func parseClock(s string) (hour, minute int, ok bool) {
	if len(s) != 5 || s[2] != ':' {
		return 0, 0, false
	}
	h, errH := strconv.Atoi(s[:2])
	m, errM := strconv.Atoi(s[3:])
	digits := strings.Trim(s[:2]+s[3:], "0123456789") == ""
	if errH != nil || errM != nil || !digits || h > 23 || m > 59 {
		return 0, 0, false
	}
	return h, m, true
}

// NextStop returns the first time at or after now (in now's location, the
// local time for a wall clock) that reads StopAt; ok is false when the team
// has no (valid) stop_at. A StopAt that does not exist that day (a DST gap)
// is normalised by time.Date.
func (t *Team) NextStop(now time.Time) (stop time.Time, ok bool) {
	h, m, ok := parseClock(t.StopAt)
	if !ok {
		return time.Time{}, false
	}
	y, mo, d := now.Date()
	stop = time.Date(y, mo, d, h, m, 0, 0, now.Location())
	if stop.Before(now) {
		stop = time.Date(y, mo, d+1, h, m, 0, 0, now.Location())
	}
	return stop, true
}

// size returns the size string at k in bytes, at least lo, or def.
func (t table) size(k string, def, lo int64, loText string) int64 {
	v, present := t.vals[k]
	if !present {
		return def
	}
	s, isStr := v.(string)
	if !isStr {
		t.d.errorf(t.key(k), "%s must be a size string such as \"50MB\", not %s", k, tomlType(v))
		return def
	}
	n, err := ParseSize(s)
	switch {
	case err != nil:
		t.d.errorf(t.key(k), "%s: %v", k, err)
		return def
	case n < lo:
		t.d.errorf(t.key(k), "%s must be at least %s, not %q", k, loText, s)
		return def
	}
	return n
}

// clock returns the "HH:MM" string at k, or "" when it is missing or invalid
// (reported).
func (t table) clock(k string) string {
	s, ok := t.str(k)
	if !ok {
		return ""
	}
	if _, _, valid := parseClock(s); !valid {
		t.d.errorf(t.key(k), "%s: invalid time %q (want HH:MM in local time, such as \"07:00\")", k, s)
		return ""
	}
	return s
}
