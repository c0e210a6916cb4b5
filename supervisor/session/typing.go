package session

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/event"
)

// input is who types into the agent, one submission at a time: warden's
// typist, with its queue and the cancel of a submission in flight, and a
// person (warden wrap, attach --rw), whose keystrokes warden's typing waits
// behind.
type input struct {
	mu       sync.Mutex         // one submission at a time: warden's typing or a person's keystrokes
	queue    chan typed         // texts for the typist
	stop     context.CancelFunc // ends a submission in flight
	lastKeys atomic.Int64       // unix nanos of a person's last keystroke (attach --rw)
	lastUser atomic.Int64       // unix nanos of the user's last keystroke (warden wrap)
}

// readyTimeout bounds the wait for a CLI's first input prompt; after it the
// first prompt is typed anyway (and Submit verifies it).
const readyTimeout = 60 * time.Second

// typed is one text for the typist.
type typed struct {
	text string
	// request: a checkpoint request of the monitor, typed only at a turn
	// boundary the screen shows; dropped (and put off) otherwise. kv are the
	// fields of its checkpoint_requested event, written when it is typed.
	request bool
	last    bool // the team's last call: typed even mid-turn
	// nudge: the idle watch's line (idle.go), kept like a request (typed at
	// a turn boundary, dropped by a park), its agent_nudged event (kv)
	// written when it is typed.
	nudge bool
	// prompt: the session's first prompt (Reporter.Prompted once taken).
	prompt bool
	kv     []any
	// epoch is the session's parks when a request was queued: one queued
	// before a park is dropped (the release asks its own).
	epoch int64
	// user: a person's text (warden send), delivered its own way.
	user *userText
	// finish: a request already in the input box, typed by a warden that
	// died before its Enter (deadrequest.go): Enter is pressed, nothing
	// typed.
	finish bool
}

// typeText queues text for the typist: submitting may pause (a paste, then
// Enter as a write of its own), and the session loop must keep recording
// answers meanwhile.
func (s *Session) typeText(text string) { s.input.queue <- typed{text: text} }

// typeRequest queues a checkpoint request; last is the team's last call.
func (s *Session) typeRequest(text string, last bool, kv ...any) {
	s.input.queue <- typed{text: text, request: true, last: last, kv: kv, epoch: s.park.epoch.Load()}
}

// typist submits queued texts in order until the session ends; the first
// waits until the CLI is at its input prompt.
func (s *Session) typist(ctx context.Context) {
	first := true
	for {
		var t typed
		select {
		case <-ctx.Done():
			return
		case t = <-s.input.queue:
		}
		if !s.waitUnheld(ctx) { // parked: nothing is typed
			return
		}
		if (t.request || t.nudge) && !t.last && t.epoch != s.park.epoch.Load() {
			s.log.Info("a checkpoint request or nudge queued before the park is dropped", "nudge", t.nudge)
			continue
		}
		if first {
			s.waitReady(ctx)
			first = false
		}
		if t.user != nil {
			t.user.result <- s.deliverUser(ctx, t)
			continue
		}
		s.deliver(ctx, t)
	}
}

// deliver types one text: never into a dialog — it waits until the dialog
// is gone, and a submission a dialog interrupted before its Enter is
// finished afterwards, never answered into the dialog.
func (s *Session) deliver(ctx context.Context, t typed) {
	resume := t.finish // a dead warden's request: typed, Enter due
	for {
		if !s.waitNoDialog(ctx) || !s.waitUnheld(ctx) {
			return
		}
		s.waitKeysQuiet(ctx) // a person types (attach --rw): after them
		if !resume && t.request && !t.last && !s.prof.TurnEnded(s.screen()) {
			// The turn the monitor saw end has not (a submission was in
			// flight, or the CLI is at work): put the request off.
			s.push(readerEvent{putOff: true})
			return
		}
		if !resume && t.nudge && !s.prof.TurnEnded(s.screen()) {
			// The agent is at work again: it is not idle (the nudge
			// stays counted; the next comes idle_after later).
			s.log.Info("nudge dropped: the agent is at work")
			return
		}
		err := s.submit(ctx, t, resume)
		switch {
		case errors.Is(err, errParked):
			if t.request || t.nudge {
				return // dropped: the release asks its own
			}
			continue // typed once the park is over
		case errors.Is(err, profile.ErrDialog):
		case errors.Is(err, profile.ErrDialogTyped):
			resume = true
		case errors.Is(err, profile.ErrBusyTyped):
			// A turn the text did not start is at work: Enter waits for
			// its end, or for the dialog it raises (then as above).
			resume = true
			if !s.waitTurnOver(ctx) {
				return
			}
			continue
		default:
			return
		}
		s.push(readerEvent{settled: true}) // the loop reads the dialog now
		s.waitDialogSeen(ctx, 2*time.Second)
	}
}

// pollUntil checks done every `every` on the session's clock until it
// holds (true), or ctx ends or max passes first (false; max 0: no bound).
func (s *Session) pollUntil(ctx context.Context, every, max time.Duration, done func() bool) bool {
	deadline := s.cfg.Clock.Now().Add(max)
	for !done() {
		if max > 0 && s.cfg.Clock.Now().After(deadline) {
			return false
		}
		if s.sleep(ctx, every) != nil {
			return false
		}
	}
	return ctx.Err() == nil
}

// sleep waits d on the session's clock, or until ctx ends (its error).
func (s *Session) sleep(ctx context.Context, d time.Duration) error {
	t := s.cfg.Clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C():
		return nil
	}
}

// waitNoDialog holds the typist while the agent waits on a dialog: warden
// never types into one. It returns false when ctx ends first.
func (s *Session) waitNoDialog(ctx context.Context) bool {
	return s.pollUntil(ctx, 100*time.Millisecond, 0, func() bool { return !s.dialog.up.Load() })
}

// busyWait bounds how long a typed text waits for its Enter while the CLI
// works on a turn it did not start; past it the text is left in the box.
const busyWait = 10 * time.Minute

// waitTurnOver holds the typist while the CLI is at work on a turn, until
// the turn is over or raised a dialog. It returns false when ctx ends or
// busyWait passes first.
func (s *Session) waitTurnOver(ctx context.Context) bool {
	over := func() bool { return !s.prof.Busy(s.screen()) || s.dialog.up.Load() }
	if s.pollUntil(ctx, 100*time.Millisecond, busyWait, over) {
		return true
	}
	if ctx.Err() == nil {
		s.log.Warn("the CLI stayed at work: the typed text is left in its input box, Enter not pressed", "waited", busyWait)
	}
	return false
}

// waitDialogSeen waits up to d for the loop to see a dialog the typist met.
func (s *Session) waitDialogSeen(ctx context.Context, d time.Duration) {
	s.pollUntil(ctx, 50*time.Millisecond, d, s.dialog.up.Load)
}

// waitReady waits until the profile sees the CLI ready for input.
func (s *Session) waitReady(ctx context.Context) {
	ready := func() bool { return s.prof.Ready(s.screen()) }
	if !s.pollUntil(ctx, 50*time.Millisecond, readyTimeout, ready) && ctx.Err() == nil {
		s.log.Warn("the CLI never showed its input prompt; typing anyway", "waited", readyTimeout)
	}
}

// screen is the session as the profile sees it.
func (s *Session) screen() profile.Screen {
	st, title, _ := s.modes.signals()
	drawn := s.tap.seq.Load() // before the rows: they hold at least that much
	return screenView{drawn: drawn, rows: s.reader.Rows(), bracketed: s.modes.bracketed(),
		waiting: s.dialog.up.Load() || st.Blocked() || s.prof.WaitingTitle(title) || s.dialog.unknownAt.Load() != 0}
}

// submit types text the profile's way (bracketed paste, a pause, Enter as a
// write of its own, verified and retried) and tells the reader first, so
// that its echo is never read as an answer and a request starts a new
// epoch when it is typed. The user's keystrokes (warden wrap) wait
// meanwhile. resume finishes a submission a dialog interrupted.
func (s *Session) submit(ctx context.Context, t typed, resume bool) error {
	s.input.mu.Lock()
	defer s.input.mu.Unlock()
	var err error
	if resume {
		if t.finish {
			s.typing(t) // its checkpoint_requested, as if typed now
			t.finish = false
		}
		err = s.prof.Resubmit(ctx, s.keys(t), s.screen, t.text)
	} else {
		if !s.startTyping(t) {
			return errParked
		}
		err = s.prof.Submit(ctx, s.keys(t), s.screen, t.text)
	}
	switch {
	case errors.Is(err, profile.ErrDialog), errors.Is(err, profile.ErrDialogTyped):
		s.log.Warn("not submitted: a dialog waits for a choice", "request", t.request, "typed", errors.Is(err, profile.ErrDialogTyped))
	case errors.Is(err, profile.ErrBusyTyped):
		s.log.Info("Enter waits: the CLI is at work on a turn the text did not start", "request", t.request)
	case errors.Is(err, profile.ErrUnknownScreen):
		s.metUnknownScreen() // a possible dialog: nothing more is typed (unknownscreen.go)
	case err != nil && ctx.Err() == nil:
		s.log.Warn("submission not confirmed", "error", err, "request", t.request)
	case err == nil && t.request:
		s.reader.Submitted() // its echo anchors its answer (protocol/reader_anchor.go)
	}
	return err
}

// errParked: a park came between the typist's look and its first key; the
// text waits for the release (a request queued before the park is dropped).
var errParked = errors.New("parked before typing")

// startTyping begins typing t unless a park has been ordered meanwhile
// (park.gate: a request's checkpoint_requested is written before any park
// that came after it, never after).
func (s *Session) startTyping(t typed) bool {
	if t.last { // the team's last call is typed whatever holds the agent
		s.typing(t)
		return true
	}
	s.park.gate.Lock()
	defer s.park.gate.Unlock()
	if s.park.held.Load() {
		return false
	}
	s.typing(t)
	return true
}

// typing tells the reader and the output clock what warden types now (its
// echo is neither an answer nor the agent's own output), and writes a
// request's checkpoint_requested event.
func (s *Session) typing(t typed) {
	s.reader.Typed(t.text)
	s.typedNow(len(t.text))
	switch {
	case t.request:
		s.r.Event(event.CheckpointRequested, t.kv...)
	case t.nudge:
		s.r.Event(event.AgentNudged, t.kv...)
	}
}
