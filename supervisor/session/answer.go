package session

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/event"
)

// A person answers the dialog an agent waits on (warden answer, the
// page): warden types the CLI's own keys for allow-once or deny, only into
// the dialog the person saw, and reads the screen until it is gone.

// Answered is what a person's answer did.
type Answered struct {
	Choice   string
	Kind     string
	Question string
	DialogID string
	// Took is from the answer's keys typed to the dialog gone from the
	// screen.
	Took time.Duration
}

const (
	// answerClose bounds the wait for the dialog to leave the screen once
	// the answer was typed.
	answerClose = 5 * time.Second
	// answerRedraw bounds the wait for the selection to move after an
	// arrow key.
	answerRedraw = time.Second
	// answerScreen bounds the wait for a dialog announced by another
	// channel (a hook, the CLI's status report) to be drawn on the screen:
	// a CLI on a loaded machine draws it seconds after its hook fired
	// (Gemini CLI 0.61, beside a whole end-to-end run: more than 1.5 s).
	answerScreen = 5 * time.Second
	// answerSettle bounds the wait for the session's watch to see the
	// dialog gone once the screen shows it gone.
	answerSettle = 2 * time.Second
	// answerMoves bounds the rounds of arrow keys.
	answerMoves = 6
)

// announcement is the dialog an agent_waiting named: its id, when, and
// whether it was read off the screen.
type announcement struct {
	id       string
	text     string
	at       time.Time
	onScreen bool
	// prev is an announcement by the CLI's status report or hook just
	// before this one off the screen (within announceJoin): the same
	// dialog, seen twice.
	prev *announcement
}

// answerShown is how long a dialog has been reported waiting before a
// person's keys go into it. A CLI built on Ink (Claude Code, Gemini CLI,
// Qwen Code) draws a dialog before it listens for keys — its input hook
// attaches after the render — and keys in between are lost; on a loaded
// machine the gap grows (a whole run: Claude Code's dialog took no notice
// of an allow-once typed 0.4 s after warden reported it). A person takes
// longer than this to read a dialog anyway.
const answerShown = time.Second

// announceJoin is how soon after a dialog announced by the CLI's status
// report or hook the screen's reading of it may follow.
const announceJoin = 3 * time.Second

// announce notes the dialog agent_waiting names and returns its id: its
// text's when it was read off the screen. A dialog announced by the CLI's
// status report or a hook before the screen was read ("dialog open") gets
// an id of its own, since every such announcement reads the same; it is
// the same dialog once the screen gives its text, and an answer may name
// it by either id.
func (s *Session) announce(text string, onScreen bool) string {
	now := s.cfg.Clock.Now()
	a := &announcement{id: profile.DialogID(text), text: text, at: now, onScreen: onScreen}
	if !onScreen {
		a.id = profile.DialogID(text + "\x00" + s.id + "\x00" + strconv.FormatInt(now.UnixNano(), 10))
	}
	if o := s.dialog.announced.Load(); o != nil && !o.onScreen && onScreen && now.Sub(o.at) < announceJoin {
		a.prev = o
	}
	s.dialog.announced.Store(a)
	return a.id
}

// DialogID is the id warden gives a person for the dialog whose text is
// text (warden ps, the page): the id agent_waiting announced it with while
// that is its text — a dialog announced by the CLI's status report or hook
// has an id of its own (announce) —, else the text's own
// (profile.DialogID). An answer naming either is taken (isDialog).
func (s *Session) DialogID(text string) string {
	if a := s.dialog.announced.Load(); a != nil && a.text == text {
		return a.id
	}
	return profile.DialogID(text)
}

// isDialog reports whether id names the dialog the agent waits on now: its
// text's, or the one its agent_waiting carried.
func (s *Session) isDialog(id string) bool {
	if profile.DialogID(s.dialogText()) == id {
		return true
	}
	a := s.dialog.announced.Load()
	if a == nil {
		return false
	}
	return a.id == id || (a.prev != nil && a.prev.id == id)
}

// StaleAnswer: the dialog the person answered is not the one on the
// screen now.
var StaleAnswer = errors.New("stale answer")

// Answer answers the dialog the agent waits on with choice
// (profile.AnswerAllowOnce or AnswerDeny) for a person, via "cli" or
// "page". dialogID, when set, is the dialog the person saw
// (profile.DialogID): any other is refused, as is an answer with no dialog
// on the screen. It returns once the dialog is gone from the screen, and
// writes dialog_answered {by: person, via, choice}.
func (s *Session) Answer(ctx context.Context, choice, dialogID, via string) (*Answered, error) {
	select {
	case <-s.ended:
		return nil, ErrEnded
	case <-s.procReady:
	}
	if !s.dialog.answering.CompareAndSwap(false, true) {
		return nil, errors.New("another answer to this agent's dialog is being typed now")
	}
	defer s.dialog.answering.Store(false)
	if !s.dialog.up.Load() {
		return nil, errors.New("the agent waits on no dialog now (it was answered, or it is gone)")
	}
	if dialogID != "" && !s.isDialog(dialogID) {
		return nil, fmt.Errorf("%w: the agent waits on another dialog now (%s), not the one answered: look again (warden ps) and answer that one",
			StaleAnswer, protocol.FirstLine(s.dialogQuestionNow()))
	}
	if a, ok, err := s.answerByDecision(ctx, choice, via); ok { // its DIALOG ANSWERED line says it closed
		if err == nil {
			s.afterAnswer(choice)
		}
		return a, err
	}
	s.input.mu.Lock()
	d, id, err := s.typeAnswer(choice, dialogID)
	s.input.mu.Unlock()
	if err != nil {
		s.log.Info("a person's answer refused", "choice", choice, "via", via, "why", err)
		s.log.Debug("the dialog the answer was refused for", "text", visibleText(d.Text))
		return nil, err
	}
	s.typedIntoDialog(viaAnswer) // its DIALOG ANSWERED line says it closed (dialogline.go)
	typed := s.cfg.Clock.Now()
	for {
		cur, ok := s.prof.Dialog(s.screen())
		if !ok || profile.DialogID(visibleText(cur.Text)) != id {
			break
		}
		if clock.Since(s.cfg.Clock, typed) > answerClose {
			return nil, fmt.Errorf("the %s keys were typed, but after %s the dialog is still on the agent's screen", choice, answerClose)
		}
		select {
		case <-s.ended:
			return nil, ErrEnded
		case <-ctx.Done():
			return nil, fmt.Errorf("the %s keys were typed; no longer waiting for the dialog to close: %w", choice, ctx.Err())
		case <-s.cfg.Clock.After(20 * time.Millisecond):
		}
	}
	took := clock.Since(s.cfg.Clock, typed)
	// The session's own watch sees it gone at its next look (the screen
	// settles first): answered means warden ps and warden send agree.
	for deadline := s.cfg.Clock.Now().Add(answerSettle); s.cfg.Clock.Now().Before(deadline); s.cfg.Clock.Sleep(20 * time.Millisecond) {
		if !s.dialog.up.Load() || !sameDialog(s.dialogText(), visibleText(d.Text)) {
			break
		}
	}
	a := &Answered{Choice: choice, Kind: d.Kind, Question: dialogQuestion(d), DialogID: id, Took: took}
	s.log.Info("a person answered the dialog", "choice", choice, "via", via, "took", a.Took)
	s.r.Event(event.DialogAnswered, event.AnsweredByPerson{By: "person", Via: via, Choice: choice, Kind: d.Kind,
		Text: visibleText(d.Text), Question: a.Question, DialogID: id, SessionID: s.id}.KV()...)
	s.r.Printf("DIALOG ANSWERED: %s's dialog (%s: %s) answered %s by a person through %s\n",
		s.cfg.Agent, d.Kind, protocol.FirstLine(a.Question), choice, viaText(via))
	s.afterAnswer(choice)
	return a, nil
}

// afterAnswer follows a person's answer: after a deny the agent is told,
// once, to carry on without that action (as after on_dialog = "deny"),
// typed once no dialog is open.
func (s *Session) afterAnswer(choice string) {
	if choice != profile.AnswerDeny {
		return
	}
	select { // this runs on the person's goroutine, which may outlive the session
	case s.input.queue <- typed{text: denyNote(true)}:
	case <-s.ended:
	}
}

// typeAnswer (with the input held) reads the dialog off the screen, checks
// it is the one answered, and types the choice's keys: arrow keys toward
// it, the screen read again after each round, then the key that takes it.
func (s *Session) typeAnswer(choice, dialogID string) (profile.Dialog, string, error) {
	// The screen shows the dialog warden reports waiting on: the CLI's
	// status report or hook may say it waits before the screen settles,
	// and the loop adopts the screen's text a moment after (the same
	// dialog, or another one, announced anew).
	var (
		scr profile.Screen
		d   profile.Dialog
		ok  bool
		id  string
	)
	for deadline := s.cfg.Clock.Now().Add(answerScreen); ; s.cfg.Clock.Sleep(25 * time.Millisecond) {
		scr = s.screen()
		d, ok = s.prof.Dialog(scr)
		id = profile.DialogID(visibleText(d.Text))
		if ok && s.dialog.up.Load() && id == profile.DialogID(s.dialogText()) {
			break
		}
		if s.cfg.Clock.Now().After(deadline) {
			if !ok {
				return d, "", errors.New("the CLI says it waits, but warden reads no dialog on its screen now: answer it with warden attach --rw")
			}
			return d, "", errors.New("the dialog on the agent's screen is not yet the one warden reports it waiting on: look again and answer")
		}
	}
	if dialogID != "" && !s.isDialog(dialogID) {
		return d, "", fmt.Errorf("%w: the dialog on the agent's screen now (%s) is not the one answered", StaleAnswer, protocol.FirstLine(dialogQuestion(d)))
	}
	if a := s.dialog.announced.Load(); a != nil {
		s.cfg.Clock.Sleep(answerShown - clock.Since(s.cfg.Clock, a.at))
	}
	for range answerMoves {
		keys, final, err := s.prof.Answer(choice, scr)
		if err != nil {
			return d, "", err
		}
		before := visibleText(d.Text)
		for _, k := range keys {
			s.cfg.Clock.Sleep(k.Pause)
			if _, err := s.proc.Write(k.Bytes); err != nil {
				return d, "", fmt.Errorf("type the answer: %w", err)
			}
		}
		if final {
			return d, id, nil
		}
		// The selection moves: read the dialog again once it is redrawn.
		deadline := s.cfg.Clock.Now().Add(answerRedraw)
		for {
			s.cfg.Clock.Sleep(20 * time.Millisecond)
			scr = s.screen()
			d, ok = s.prof.Dialog(scr)
			if !ok || profile.DialogID(visibleText(d.Text)) != id {
				return d, "", errors.New("the dialog changed while warden moved its selection: nothing was confirmed")
			}
			if visibleText(d.Text) != before || s.cfg.Clock.Now().After(deadline) {
				break
			}
		}
	}
	return d, "", errors.New("the selection never reached the allow-once choice: nothing was confirmed")
}

// dialogQuestionNow is the question of the dialog the agent waits on now.
func (s *Session) dialogQuestionNow() string {
	return profile.QuestionOf(s.dialogText())
}

// dialogQuestion is what dialog d asks, as events carry it: its question
// (the profile's), or its text without the choices.
func dialogQuestion(d profile.Dialog) string {
	q := d.Question
	if q == "" {
		q = profile.QuestionOf(d.Text)
	}
	return visibleText(q)
}

func visibleText(s string) string { return protocol.Visible(profile.Sanitize(s)) }

func viaText(via string) string {
	switch via {
	case "page":
		return "the page"
	case "cli":
		return "warden answer"
	}
	return via
}

// sameDialog reports whether two texts read off the screen are one dialog:
// the same but for where its selection mark is (a person, or warden
// answer, moving it).
func sameDialog(a, b string) bool {
	return a == b || profile.DialogID(a) == profile.DialogID(b)
}
