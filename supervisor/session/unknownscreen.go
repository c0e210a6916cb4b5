package session

import (
	"fmt"
	"time"

	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
)

// An unknown screen: after warden's Enter the CLI showed neither its input
// box nor a turn nor a dialog its profile knows (profile.ErrUnknownScreen) —
// something drawn in place of the box, possibly a dialog in words no
// profile knows (any CLI update may draw one), which would take any key as
// its preselected answer. Typing stops there. While the screen stays so,
// nothing is typed (the typist sees the agent as waiting); once it has
// lasted unknownPersist it is a dialog a person must look at: agent_waiting
// {kind: other}, its text the rows drawn where the box was. It is never
// denied (the CLI's deny keys are for the dialogs its profile knows), and it
// ends when the screen shows the box or a turn again.

// unknownPersist is how long an unknown screen met after Enter lasts before
// warden announces it as a dialog.
const unknownPersist = 3 * time.Second

// unknownQuestion is the question of an unknown screen's dialog.
const unknownQuestion = "a screen warden does not know, in place of the CLI's input box"

// metUnknownScreen is the typist's word that its Enter met an unknown
// screen (any goroutine): the loop looks now and again after
// unknownPersist.
func (s *Session) metUnknownScreen() {
	s.dialog.unknownAt.Store(s.cfg.Clock.Now().UnixNano())
	s.log.Warn("after Enter the screen shows something warden does not know in place of the input box: nothing more is typed; a possible dialog")
	s.cfg.Clock.AfterFunc(unknownPersist, func() { s.push(readerEvent{signals: true}) })
	s.push(readerEvent{signals: true})
}

// unknownDialog is the unknown screen the typist met, as a dialog, once it
// has lasted unknownPersist (the loop's goroutine). A screen that shows the
// box or a turn again ends the watch; one between frames (blank) keeps it.
func (s *Session) unknownDialog(scr profile.Screen) (profile.Dialog, bool) {
	at := s.dialog.unknownAt.Load()
	if at == 0 {
		return profile.Dialog{}, false
	}
	text, ok := s.prof.Unknown(scr)
	switch {
	case !ok && (s.prof.Ready(scr) || s.prof.Busy(scr)):
		s.dialog.unknownAt.Store(0)
		s.log.Info("the CLI shows its input box or a turn again: the unknown screen is gone")
		return profile.Dialog{}, false
	case !ok:
		return profile.Dialog{}, false
	case s.cfg.Clock.Now().Sub(time.Unix(0, at)) < unknownPersist:
		return profile.Dialog{}, false // the AfterFunc looks again
	}
	return profile.Dialog{Kind: profile.DialogOther, Text: text, Question: unknownQuestion}, true
}

// unknownUp reports whether the dialog waited on now is an unknown screen.
func (w *dialogWatch) unknownUp() bool {
	return w.cur != nil && w.cur.Question == unknownQuestion
}

// unknownLine is the WARNING that an unknown screen waits for a person.
func unknownLine(agent string, d profile.Dialog) string {
	return fmt.Sprintf("WARNING: %s shows a screen warden does not know in place of its input box, after warden's Enter (%s): %s; "+
		"warden types nothing into it and never denies it: look at it with warden screen %s, answer it in its terminal: warden attach --rw %s\n",
		agent, d.Kind, protocol.FirstLine(d.Text), agent, agent)
}
