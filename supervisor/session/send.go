package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/event"
	"github.com/wardenhq/warden/supervisor/face"
)

// keysQuiet is how long after a person's last keystroke (attach --rw)
// warden's own typing waits.
const keysQuiet = 2 * time.Second

// Keys writes a person's keystrokes (attach --rw) to the agent, never
// inside one of warden's submissions; warden's own typing waits until they
// pause for keysQuiet.
func (s *Session) Keys(p []byte) error {
	select {
	case <-s.ended:
		return ErrEnded
	default:
	}
	s.input.lastKeys.Store(s.cfg.Clock.Now().UnixNano())
	s.typedIntoDialog(viaAttach)
	s.input.mu.Lock()
	defer s.input.mu.Unlock()
	_, err := s.proc.Write(p)
	return err
}

// waitKeysQuiet holds warden's typing while a person types.
func (s *Session) waitKeysQuiet(ctx context.Context) {
	for {
		left := keysQuiet - clock.Since(s.cfg.Clock, time.Unix(0, s.input.lastKeys.Load()))
		if left <= 0 || s.sleep(ctx, left) != nil {
			return
		}
	}
}

// userText is a person's text in the typist's queue.
type userText struct {
	ctx    context.Context // the caller's: it stops waiting
	force  bool
	result chan face.SendResult
}

// Send types text for a person (warden send) with the profile's verified
// submit, at the next turn boundary: a TUI's screen shows its turn ended
// with an empty input box, a plain agent's output has been quiet for its
// turn_quiet. It goes through warden's own typing queue, so that warden's
// requests wait behind it. Into a dialog it is refused, unless force: then
// the text and Enter are typed as they are (a person answering the
// dialog). It waits until ctx ends for the boundary. A text_sent event says
// what happened.
func (s *Session) Send(ctx context.Context, text string, force bool) face.SendResult {
	res := s.send(ctx, text, force)
	if res.Outcome == face.Refused && res.Reason == "" {
		res.Reason = "no turn boundary before the wait ended"
		select {
		case <-s.ended:
			res.Reason = ErrEnded.Error()
		default:
		}
	}
	s.log.Info("text sent by a person", "outcome", res.Outcome, "reason", res.Reason, "bytes", len(text), "force", force)
	s.r.Event(event.TextSent, "outcome", res.Outcome, "reason", res.Reason, "bytes", len(text),
		"force", force, "text", preview(text), "session_id", s.id)
	return res
}

func (s *Session) send(ctx context.Context, text string, force bool) face.SendResult {
	if s.dialog.up.Load() {
		if !force {
			return s.refuseDialog()
		}
		return s.typeIntoDialog(ctx, text) // warden's own queue waits for the dialog to go
	}
	u := &userText{ctx: ctx, force: force, result: make(chan face.SendResult, 1)}
	select {
	case s.input.queue <- typed{text: text, user: u}:
	case <-ctx.Done():
		return face.SendResult{Outcome: face.Refused}
	case <-s.ended:
		return face.SendResult{Outcome: face.Refused}
	}
	select {
	case r := <-u.result:
		if r.Outcome == face.Refused && r.Reason == "" && s.dialog.up.Load() {
			return s.refuseDialog() // a dialog came up while it waited for the turn to end
		}
		return r
	case <-s.ended:
		return face.SendResult{Outcome: face.Refused}
	}
}

func (s *Session) refuseDialog() face.SendResult {
	return face.SendResult{Outcome: face.Refused, Reason: "the agent waits on a dialog (" + protocol.FirstLine(s.dialogText()) +
		"): answer it with warden answer " + s.cfg.Agent + " allow-once|deny, in its terminal (warden attach --rw " + s.cfg.Agent +
		"), or type into the dialog with warden send --force"}
}

// deliverUser (the typist) types a person's text at the next turn
// boundary; ctx is the typist's.
func (s *Session) deliverUser(ctx context.Context, t typed) face.SendResult {
	u := t.user
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(u.ctx, cancel)
	defer stop()
	for {
		if ctx.Err() != nil {
			return face.SendResult{Outcome: face.Refused}
		}
		if s.dialog.up.Load() {
			if !u.force {
				return s.refuseDialog()
			}
			return s.typeIntoDialog(ctx, t.text)
		}
		s.waitKeysQuiet(ctx)
		if !s.atTurnBoundary() {
			s.sleep(ctx, 50*time.Millisecond)
			continue
		}
		s.input.mu.Lock()
		s.reader.Typed(t.text)
		s.typedNow(len(t.text))
		err := s.prof.Submit(ctx, s.proc, s.screen, t.text)
		s.input.mu.Unlock()
		return sendResult(err)
	}
}

// atTurnBoundary reports whether the agent is between turns: the screen
// says so (TUIs), or a plain agent has been quiet for its turn_quiet.
func (s *Session) atTurnBoundary() bool {
	if s.prof.Mode == protocol.ModeLines {
		last := s.out.last.Load()
		return last == 0 || clock.Since(s.cfg.Clock, time.Unix(0, last)) >= s.prof.TurnQuiet
	}
	return s.prof.TurnEnded(s.screen())
}

func sendResult(err error) face.SendResult {
	switch {
	case err == nil:
		return face.SendResult{Outcome: face.Submitted}
	case errors.Is(err, profile.ErrNotSubmitted):
		return face.SendResult{Outcome: face.TypedNotSubmitted, Reason: "Enter was pressed but no turn started; the text may sit in the input box"}
	case errors.Is(err, profile.ErrDialogTyped):
		return face.SendResult{Outcome: face.TypedNotSubmitted, Reason: "a dialog came up before Enter; the text stays in the input box"}
	case errors.Is(err, profile.ErrDialog):
		return face.SendResult{Outcome: face.Refused, Reason: "a dialog waits for a choice"}
	case errors.Is(err, profile.ErrDraft):
		return face.SendResult{Outcome: face.Refused, Reason: "the input box holds a draft: " + err.Error()}
	default:
		return face.SendResult{Outcome: face.Refused, Reason: err.Error()}
	}
}

// typeIntoDialog types text and Enter into the dialog the agent waits on
// (warden send --force): submitted once the dialog is gone.
func (s *Session) typeIntoDialog(ctx context.Context, text string) face.SendResult {
	s.typedIntoDialog(viaSend)
	s.input.mu.Lock()
	s.typedNow(len(text))
	_, err := s.proc.Write([]byte(profile.Sanitize(text) + "\r"))
	s.input.mu.Unlock()
	if err != nil {
		return face.SendResult{Outcome: face.Refused, Reason: fmt.Sprintf("write to the agent: %v", err)}
	}
	if !s.pollUntil(ctx, 50*time.Millisecond, 5*time.Second, func() bool { return !s.dialog.up.Load() }) {
		return face.SendResult{Outcome: face.TypedNotSubmitted, Reason: "typed into the dialog, which is still up"}
	}
	return face.SendResult{Outcome: face.Submitted, Reason: "typed into the dialog, which is gone"}
}

// preview is the start of a text, for the event log.
func preview(text string) string {
	r := []rune(text)
	if len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return text
}
