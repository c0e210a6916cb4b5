package profile

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// resetCue finds where a banner states its reset time: "resets 3pm",
// "reset at 3pm", "try again at 8:02 AM", "try again in 2h 13m",
// "Access resets at 8:03 AM UTC", "retry in 30s".
var resetCue = regexp.MustCompile(`(?i)\b(?:resets?|try again|retry)\b(?:\s+(?:at|in|on))?\s+`)

// resetTime parses the first reset time a paragraph states.
func resetTime(para string, now time.Time) (time.Time, bool) {
	for _, m := range resetCue.FindAllStringIndex(para, -1) {
		if t, ok := parseWhen(para[m[1]:], now); ok {
			return t, true
		}
	}
	return time.Time{}, false
}

// durationRe matches "2h 13m", "45 minutes", "1 hour and 5 minutes", "30s",
// "3 days" at the start of a string.
var durationRe = regexp.MustCompile(`(?i)^(?:\d+(?:\.\d+)?\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b[\s,]*(?:and\s+)?)+`)

var durationPart = regexp.MustCompile(`(?i)(\d+(?:\.\d+)?)\s*([a-z]+)`)

// clockRe matches an optional date ("Nov 24,", "Nov 23rd, 2026", "Nov 24,
// 2027,"), a clock time ("8:02 AM", "3pm", "15:00") and an optional zone
// ("(America/New_York)", "UTC", "GMT+2", "PST") at the start of a string.
var clockRe = regexp.MustCompile(`(?i)^(?:(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?:(?P<year>\d{4}),?\s+)?(?:at\s+)?)?` +
	`(?P<h>\d{1,2})(?::(?P<min>\d{2}))?\s*(?P<ampm>[ap]\.?m\.?)?\b` +
	`(?:\s*\(?(?P<zone>[a-z]+/[a-z_/+-]+|(?:utc|gmt)(?:[+-]\d{1,2}(?::?\d{2})?)?|[a-z]{2,5})\)?)?`)

var months = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// zoneAbbrev are the abbreviations Intl and strftime print for common
// zones; an ambiguous or unknown one falls back to local time.
var zoneAbbrev = map[string]int{ // hours east of UTC
	"UTC": 0, "GMT": 0, "Z": 0,
	"EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6,
	"PST": -8, "PDT": -7, "AKST": -9, "AKDT": -8, "HST": -10,
	"CET": 1, "CEST": 2, "EET": 2, "EEST": 3, "WET": 0, "WEST": 1, "BST": 1, "JST": 9,
}

// parseWhen reads a reset time at the start of s, relative to now.
func parseWhen(s string, now time.Time) (time.Time, bool) {
	s = strings.Map(func(r rune) rune {
		if r == '\u202f' || r == '\u00a0' || r == '\u2009' {
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
	if d, ok := parseDuration(s); ok {
		return now.Add(d), true
	}
	m := clockRe.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	g := func(name string) string { return m[clockRe.SubexpIndex(name)] }
	if g("ampm") == "" && g("min") == "" {
		return time.Time{}, false // a bare number is not a time
	}
	h, _ := strconv.Atoi(g("h"))
	mi, _ := strconv.Atoi(g("min"))
	switch ampm := strings.ToLower(strings.ReplaceAll(g("ampm"), ".", "")); {
	case ampm == "pm" && h < 12:
		h += 12
	case ampm == "am" && h == 12:
		h = 0
	}
	if h > 23 || mi > 59 {
		return time.Time{}, false
	}
	loc := zoneOf(g("zone"))
	ref := now.In(loc)
	y, mo, d := ref.Date()
	dated := g("mon") != ""
	if dated {
		mo = time.Month(indexOf(months, strings.ToLower(g("mon"))) + 1)
		d, _ = strconv.Atoi(g("day"))
		if yy := g("year"); yy != "" {
			y, _ = strconv.Atoi(yy)
		}
	}
	t := time.Date(y, mo, d, h, mi, 0, 0, loc)
	switch {
	case dated && g("year") == "" && t.Before(now.AddDate(0, -6, 0)):
		t = t.AddDate(1, 0, 0) // "Jan 2" seen in late December
	case !dated && t.Before(now.Add(-time.Hour)):
		t = t.AddDate(0, 0, 1) // "1am" seen at 11 pm
	}
	return t, true
}

func parseDuration(s string) (time.Duration, bool) {
	m := durationRe.FindString(s)
	if m == "" {
		return 0, false
	}
	var total time.Duration
	for _, p := range durationPart.FindAllStringSubmatch(m, -1) {
		n, err := strconv.ParseFloat(p[1], 64)
		if err != nil {
			return 0, false
		}
		var unit time.Duration
		switch u := strings.ToLower(p[2]); {
		case u == "and":
			continue
		case strings.HasPrefix(u, "d"):
			unit = 24 * time.Hour
		case strings.HasPrefix(u, "h"):
			unit = time.Hour
		case u == "m" || strings.HasPrefix(u, "min"):
			unit = time.Minute
		case u == "ms":
			unit = time.Millisecond
		default:
			unit = time.Second
		}
		total += time.Duration(n * float64(unit))
	}
	return total, total > 0
}

// zoneOf resolves an IANA name ("Europe/Berlin"), an abbreviation ("PST")
// or an offset ("GMT+2", "UTC-05:30"); anything else is time.Local.
func zoneOf(z string) *time.Location {
	if z == "" {
		return time.Local
	}
	if strings.Contains(z, "/") {
		if loc, err := time.LoadLocation(z); err == nil {
			return loc
		}
		return time.Local
	}
	u := strings.ToUpper(z)
	if h, ok := zoneAbbrev[u]; ok {
		return time.FixedZone(u, h*3600)
	}
	if len(u) > 3 && (strings.HasPrefix(u, "UTC") || strings.HasPrefix(u, "GMT")) {
		off := u[3:]
		sign := 1
		if off[0] == '-' {
			sign = -1
		}
		hh, mm := strings.ReplaceAll(off[1:], ":", ""), ""
		if len(hh) > 2 {
			hh, mm = hh[:len(hh)-2], hh[len(hh)-2:]
		}
		h, _ := strconv.Atoi(hh)
		m, _ := strconv.Atoi(mm)
		return time.FixedZone(u, sign*(h*3600+m*60))
	}
	return time.Local
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
