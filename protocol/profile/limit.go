package profile

import (
	"regexp"
	"time"
)

// resetCue finds where a banner states its reset time: "resets 3pm",
// "reset at 3pm", "try again at 8:02 AM", "try again in 2h 13m",
// "Access resets at 8:03 AM UTC", "retry in 30s".
var resetCue = regexp.MustCompile(`(?i)\b(?:resets?|try again|retry)\b(?:\s+(?:at|in|on))?\s+`)

// UsageLimit reads a usage-limit banner from the CLI's own output below
// the last message the user (or warden) typed — never from typed text —
// and parses its reset time relative to now: a clock time ("8:02 AM",
// "3pm (Europe/Berlin)", "Nov 24, 3pm", "8:03 AM UTC"; a time without a
// zone is local, a past time today within the hour is kept, an earlier one
// means tomorrow) or a duration ("in 2h 13m"). A banner without a reset
// time yields now + LimitRetry. text is the banner paragraph. ok is false
// when there is none (always for plain). Callers should require the same
// answer from two reads, as a banner may be half drawn.
func (p *Profile) UsageLimit(s Screen, now time.Time) (resetAt time.Time, ok bool, text string) {
	if p.tui == nil {
		return time.Time{}, false, ""
	}
	v := p.tui.view(s.Rows())
	for _, para := range v.paragraphs() {
		for _, re := range p.tui.limits {
			if !re.MatchString(para) {
				continue
			}
			if at, found := resetTime(para, now); found {
				return at, true, para
			}
			return now.Add(p.LimitRetry), true, para
		}
	}
	return time.Time{}, false, ""
}

// resetTime parses the first reset time a paragraph states.
func resetTime(para string, now time.Time) (time.Time, bool) {
	for _, m := range resetCue.FindAllStringIndex(para, -1) {
		if t, ok := parseWhen(para[m[1]:], now); ok {
			return t, true
		}
	}
	return time.Time{}, false
}
