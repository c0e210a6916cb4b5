package session

import (
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/event"
)

// Sources of a limit sign, the better first: a structured signal gives the
// reset to the second, a banner or dialog to the minute it shows, a hook
// that the turn ended on the limit none.
const (
	SourceStatusLine  = "status_line"  // Claude Code's status line: rate_limits.*
	SourceRateLimits  = "rate_limits"  // Codex's rate-limit windows
	SourceStopFailure = "stop_failure" // Claude Code's StopFailure hook, error rate_limit
	SourceBanner      = "banner"       // the CLI's limit banner, the same on two reads
	SourceDialog      = "dialog"       // the CLI's limit dialog (Gemini CLI's), the same on two reads
	// SourceCarried: the park a warden killed before the reset had made
	// (state.json's paused_until), carried over with the agents taken back
	// from the holder.
	SourceCarried = "carried_over"
)

// LimitSign is what a session saw of its account's usage limit.
type LimitSign struct {
	// Reset is when the limit resets; zero when the sign does not say.
	Reset time.Time
	// Exact: Reset is to the second (a structured signal); else it is a
	// clock time shown to the minute, up to a minute early.
	Exact  bool
	Source string
	Text   string
}

// Proof reports whether the sign is one the agent's own process tree
// cannot send (issue 33): its CLI's refused request on its screen — a
// banner or a limit dialog, read twice. A hook, a status line or an
// app-server's windows can come from any process of the agent's: such a
// sign parks that agent alone until a proof agrees (supervisor/account).
// A park carried over is warden's own word, from state.json (which the
// box's walls keep agents from writing).
func (l LimitSign) Proof() bool {
	return l.Source == SourceBanner || l.Source == SourceDialog || l.Source == SourceCarried
}

// limitWatch is what a session knows of its account's usage limit (the
// loop owns it): banners on their way to a second read, the notices said,
// and the limit as this agent's own CLI showed it.
type limitWatch struct {
	banner    string // a banner seen once on the screen, at bannerAt
	bannerAt  time.Time
	oldBanner string // on screen when the last park ended: not a new limit
	notices   map[string]bool

	// own is the limit as the CLI's screen shows it (nil: it showed none
	// this park); hooked: its hooks said its turn ended at the limit.
	own    *profile.Limit
	hooked bool
	// structReset is the newest reset a structured window gave, for a
	// StopFailure that gives none.
	structReset time.Time
	// noAuto: the CLI said it will not continue by itself; autoFired: it
	// did (its hook).
	noAuto, autoFired bool
}

// bannerRecheck is when a banner seen once is read again: it counts only
// when it is still there, the same, on a later read.
const bannerRecheck = time.Second

// settled runs when the agent's output has been quiet for the profile's
// settle time: the reader parses the screen, and a TUI's screen is checked
// for a usage-limit banner.
func (s *Session) settled() {
	if s.reader.Quiet() {
		s.settle.poke() // a block that did not parse is read once more
	}
	if s.prof.Mode == protocol.ModeScreen && s.cfg.Task != nil {
		s.push(readerEvent{settled: true})
	}
}

// reachedLimit reads a reached limit off the screen.
func (s *Session) reachedLimit(now time.Time) (profile.Limit, bool) {
	l, ok := s.prof.Limit(s.screen(), now)
	return l, ok && l.Kind == profile.LimitReached
}

// checkBanner reads the profile's limit off the screen: a notice before the
// limit is limit_approaching, once a notice; a reached limit, the same on
// two reads bannerRecheck apart, is a sign of the account's limit. While
// the account resumes, it watches for the CLI's own continue.
func (s *Session) checkBanner() {
	if s.mon == nil || s.park.frozen {
		return // a stopped CLI's screen says nothing new
	}
	now := s.cfg.Clock.Now()
	w := &s.limits
	l, ok := s.prof.Limit(s.screen(), now)
	if ok && l.Kind == profile.LimitApproaching {
		s.approaching(l)
		ok = false
	}
	switch {
	case !ok:
		w.banner, w.oldBanner = "", ""
		if s.park.phase == parkFree {
			w.own = nil // a banner seen once that went away
		}
	case l.Text == w.oldBanner:
		// the limit already waited out, still on the screen
	default:
		w.own = &l
		if w.banner == l.Text && now.Sub(w.bannerAt) >= bannerRecheck/2 {
			w.banner = ""
			source := SourceBanner
			if d, up := s.prof.Dialog(s.screen()); up && d.Kind == profile.DialogLimit {
				source = SourceDialog
			}
			s.limitSign(LimitSign{Reset: l.Reset, Source: source, Text: l.Text})
		} else if w.banner != l.Text {
			w.banner, w.bannerAt = l.Text, now
			s.cfg.Clock.AfterFunc(bannerRecheck, func() { s.push(readerEvent{settled: true}) })
		}
	}
	s.awaitCLI(now)
}

// approaching says a CLI's warning before its limit, once a notice: never a
// park, never a completion.
func (s *Session) approaching(l profile.Limit) {
	w := &s.limits
	if w.notices[l.Text] {
		return
	}
	if w.notices == nil {
		w.notices = map[string]bool{}
	}
	w.notices[l.Text] = true
	s.log.Info("the CLI warns of its usage limit", "text", l.Text, "reset", l.Reset)
	s.r.Event(event.LimitApproaching, "text", l.Text, "resets_at", formatTime(l.Reset), "session_id", s.id)
}

// limitSign holds the session at once — nothing is typed from now on — and
// tells the account, which parks every agent of it (this one too).
func (s *Session) limitSign(l LimitSign) {
	if s.park.phase == parkFree {
		s.log.Warn("usage limit", "source", l.Source, "reset", l.Reset, "text", l.Text)
	}
	s.onPark(time.Time{})
	s.r.Limit(l)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
