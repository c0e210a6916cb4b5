package config

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// tomlType names the TOML type of a decoded value, for messages.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case time.Time:
		return "date-time"
	case []any:
		return "array"
	case map[string]any:
		return "table"
	case []map[string]any:
		return "array of tables"
	}
	return fmt.Sprintf("%T", v)
}

// table is one TOML table being validated: its values and its path.
type table struct {
	d     *decoder
	vals  map[string]any
	path  string
	where string // " in [[agent]]" for messages; "" at the top level
}

// key returns the path of key k in the table.
func (t table) key(k string) string { return pathKey(t.path, k) }

// unknown reports every key of the table not in known.
func (t table) unknown(known ...string) {
	var bad []string
	for k := range t.vals {
		found := false
		for _, kk := range known {
			found = found || k == kk
		}
		if !found {
			bad = append(bad, k)
		}
	}
	sort.Strings(bad)
	for _, k := range bad {
		t.d.errorf(t.key(k), "unknown key %q%s", k, t.where)
	}
}

// str returns the string at k; ok is false when it is missing or not a string
// (the latter is reported).
func (t table) str(k string) (s string, ok bool) {
	v, present := t.vals[k]
	if !present {
		return "", false
	}
	s, ok = v.(string)
	if !ok {
		t.d.errorf(t.key(k), "%s must be a string, not %s", k, tomlType(v))
	}
	return s, ok
}

// nonEmpty returns the string at k, reporting an empty or blank one.
func (t table) nonEmpty(k string) (string, bool) {
	s, ok := t.str(k)
	if ok && strings.TrimSpace(s) == "" {
		t.d.errorf(t.key(k), "%s must not be empty", k)
		return "", false
	}
	return s, ok
}

// oneOf returns the string at k if it is one of allowed, else def; a value
// outside allowed is reported.
func (t table) oneOf(k, def string, allowed ...string) string {
	s, ok := t.str(k)
	if !ok {
		return def
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	t.d.errorf(t.key(k), "unknown %s %q (want %s)", k, s, orList(allowed))
	return def
}

// orList formats "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// duration returns the positive Go duration string at k, or def; ok is false
// when the key is there but invalid (reported).
func (t table) duration(k string, def time.Duration) (time.Duration, bool) {
	return t.durationFrom(k, def, false)
}

// durationOrZero is duration that also takes a zero duration ("0s").
func (t table) durationOrZero(k string, def time.Duration) (time.Duration, bool) {
	return t.durationFrom(k, def, true)
}

func (t table) durationFrom(k string, def time.Duration, zeroOK bool) (time.Duration, bool) {
	v, present := t.vals[k]
	if !present {
		return def, true
	}
	s, isStr := v.(string)
	if !isStr {
		t.d.errorf(t.key(k), "%s must be a duration string such as \"5m\", not %s", k, tomlType(v))
		return def, false
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		t.d.errorf(t.key(k), "%s: invalid duration %q (want a Go duration such as \"30s\", \"5m\" or \"1h30m\")", k, s)
		return def, false
	case d < 0 && zeroOK:
		t.d.errorf(t.key(k), "%s must be 0s or more, not %q", k, s)
		return def, false
	case d <= 0 && !zeroOK:
		t.d.errorf(t.key(k), "%s must be positive, not %q", k, s)
		return def, false
	case d > 0 && d < MinDuration:
		t.d.errorf(t.key(k), "%s must be at least %s, not %q", k, time.Duration(MinDuration), s)
		return def, false
	}
	return d, true
}

// integer returns the integer at k within [lo, hi], or def.
func (t table) integer(k string, def, lo, hi int64, rangeMsg string) int {
	v, present := t.vals[k]
	if !present {
		return int(def)
	}
	n, ok := v.(int64)
	if !ok {
		t.d.errorf(t.key(k), "%s must be an integer, not %s", k, tomlType(v))
		return int(def)
	}
	if n < lo || n > hi {
		t.d.errorf(t.key(k), "%s must be %s, not %d", k, rangeMsg, n)
		return int(def)
	}
	return int(n)
}

// strings returns the array of strings at k; present is false when k is
// missing. Elements that are not strings are reported at the element.
func (t table) strings(k string) (list []string, present, ok bool) {
	v, present := t.vals[k]
	if !present {
		return nil, false, false
	}
	arr, isArr := v.([]any)
	if !isArr {
		t.d.errorf(t.key(k), "%s must be an array of strings, not %s", k, tomlType(v))
		return nil, true, false
	}
	ok = true
	list = make([]string, 0, len(arr))
	for i, e := range arr {
		s, isStr := e.(string)
		if !isStr {
			t.d.errorf(pathIndex(t.key(k), i), "%s[%d] must be a string, not %s", k, i, tomlType(e))
			ok = false
			continue
		}
		list = append(list, s)
	}
	return list, true, ok
}

// argv returns the non-empty argv at k with a non-blank argv[0].
func (t table) argv(k string) (argv []string, present, ok bool) {
	argv, present, ok = t.strings(k)
	if !ok {
		return nil, present, false
	}
	if len(argv) == 0 {
		t.d.errorf(t.key(k), "%s must not be empty", k)
		return nil, true, false
	}
	if strings.TrimSpace(argv[0]) == "" {
		t.d.errorf(pathIndex(t.key(k), 0), "%s[0] must not be empty", k)
		return nil, true, false
	}
	return argv, true, true
}
