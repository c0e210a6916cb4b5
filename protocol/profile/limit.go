package profile

import (
	"regexp"
	"time"
)

// Kinds of Limit.
const (
	// LimitReached: the account's usage limit is reached; the CLI sends
	// nothing that works until Reset.
	LimitReached = "reached"
	// LimitApproaching: the CLI's own warning before the limit ("You've
	// used 95% of your 5-hour limit", Codex's "Heads up, you have less than
	// 5% of your 5h limit left"). Not a limit, not a completion: the agent
	// works on.
	LimitApproaching = "approaching"
)

// Limit is what a CLI's screen says about its account's usage limit.
type Limit struct {
	Kind string // LimitReached or LimitApproaching
	// Reset is when the window resets, as the CLI states it: a clock time
	// to the minute it shows (the real reset may be up to a minute later),
	// or after a duration. Zero when the screen gives no time.
	Reset time.Time
	// AutoResume (LimitReached only): the CLI has armed its own continue
	// at the reset and will send the refused request again by itself
	// (Claude Code signed in to claude.ai: "set to continue automatically
	// at 10:50pm", fired 30–120 s after the reset). Nothing may be typed
	// for it. False once the CLI says it will not (cancelled, turned off).
	AutoResume bool
	// Text is the banner or notice as the screen shows it: the same text
	// on two reads is the same limit.
	Text string
}

// limitSigns is what a CLI's own reading of its limit rows found
// (tuiRules.limitRead), before the paragraph rules are read.
type limitSigns struct {
	reached     *Limit
	approaching *Limit
	// over: the CLI says the limit it showed has reset (Claude's "Usage
	// limit reset · Continuing automatically"): the paragraph rules are not
	// read for a reached limit.
	over bool
}

// Limit reads the CLI's usage limit off the screen: a reached limit, or
// else its warning before the limit, from the CLI's own output below the
// last message the user (or warden) typed — never from typed text — with
// the reset time parsed relative to now: a clock time ("8:02 AM", "3pm
// (Europe/Berlin)", "Nov 26th, 2026 12:40 AM", "10:54 PM UTC"; a time
// without a zone is local, a past time today within the hour is kept, an
// earlier one means tomorrow) or a duration ("in 2h 13m"). ok is false
// when the screen shows neither (always for plain). A limit dialog on the
// same screen is Dialog's (kind DialogLimit). Callers should require the
// same Text from two reads, as a banner may be half drawn.
func (p *Profile) Limit(s Screen, now time.Time) (Limit, bool) {
	if p.tui == nil {
		return Limit{}, false
	}
	v := p.tui.view(s.Rows())
	var signs limitSigns
	if p.tui.limitRead != nil {
		signs = p.tui.limitRead(v, now)
	}
	if signs.reached != nil {
		return *signs.reached, true
	}
	paras := v.paragraphs()
	if !signs.over {
		if l, ok := paragraphLimit(paras, p.tui.limits, LimitReached, now); ok {
			return l, true
		}
	}
	if signs.approaching != nil {
		return *signs.approaching, true
	}
	return paragraphLimit(paras, p.tui.approaching, LimitApproaching, now)
}

// paragraphLimit is the first paragraph (the bottom one first) that one of
// res matches, as a Limit of kind.
func paragraphLimit(paras []string, res []*regexp.Regexp, kind string, now time.Time) (Limit, bool) {
	for _, para := range paras {
		for _, re := range res {
			if re.MatchString(para) {
				at, _ := resetTime(para, now)
				return Limit{Kind: kind, Reset: at, Text: para}, true
			}
		}
	}
	return Limit{}, false
}

// UsageLimit is Limit for a reached limit only, its reset now +
// LimitRetry when the screen gives no time ("Please try again later").
// It does not say whether the CLI resumes by itself: read Limit for that.
func (p *Profile) UsageLimit(s Screen, now time.Time) (resetAt time.Time, ok bool, text string) {
	l, ok := p.Limit(s, now)
	if !ok || l.Kind != LimitReached {
		return time.Time{}, false, ""
	}
	if l.Reset.IsZero() {
		return now.Add(p.LimitRetry), true, l.Text
	}
	return l.Reset, true, l.Text
}
