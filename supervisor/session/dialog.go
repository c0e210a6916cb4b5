package session

import (
	"cmp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wardenhq/warden/internal/console"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/event"
)

// DialogPolicy is what the session does with a dialog: wait for a person,
// or after Timeout answer it with the CLI's deny keys (never Yes).
type DialogPolicy struct {
	Deny    bool
	Timeout time.Duration
}

// denyNote is typed once after a dialog was denied, by warden (on_dialog =
// "deny") or by a person (warden answer, the page): the agent carries on
// without that action. A CLI that a deny interrupts (Claude Code's Esc:
// "What should Claude do instead?") would otherwise sit at its prompt
// until the next checkpoint request.
func denyNote(byPerson bool) string {
	who := "nobody could answer the dialog above while this team runs unattended, so warden denied it"
	if byPerson {
		who = "a person denied the action in the dialog above"
	}
	return "warden: " + who + ". Continue your task without that action; if you cannot, say what you needed " +
		"under Blockers: in your next checkpoint."
}

// dialogWatch is what the session knows of a dialog its CLI waits on. Four
// channels say so: the screen (the profile's dialog rules), the program's
// status report (OSC 7501 state=blocked), its window title ("Action
// Required"), and the CLI's hooks. A hook's word holds until the screen
// shows the CLI busy or at its prompt, or its status report moves on. The
// CLI's own usage-limit dialog, which the profile answers with the choice
// that changes nothing (kept), waits for no person: no agent_waiting, no
// deny.
type dialogWatch struct {
	cur    *profile.Dialog // the dialog waited on now; nil: none
	screen bool            // cur was read off the screen
	since  time.Time
	denied bool
	kept   bool            // cur is a limit dialog warden answers (Keep.Keys)
	hook   *profile.Dialog // announced by a hook, not yet seen to end
	// hookAt is when the hook's word came; hookSeen: the screen has shown
	// neither the prompt nor a turn since (the dialog, drawn). Only then,
	// or hookGrace after the hook, can the screen say the CLI moved on.
	hookAt   time.Time
	hookSeen bool
	// channel is a request of the app-server (channel.go), until it is
	// resolved (its id: s.app.pending).
	channel *profile.Dialog
	// first is a dialog's text read once off the screen: all but a
	// permission dialog count from their second read (a limit dialog half
	// drawn reads as another kind).
	first string
	// bare is the question of a permission dialog drawn without its
	// choices yet, first read at bareSince (secondRead).
	bare      string
	bareSince time.Time
	// answered is the text of the limit dialog warden answered (once).
	answered string

	// For the typist and the senders (any goroutine): up mirrors cur !=
	// nil, text holds its text.
	up   atomic.Bool
	text atomic.Value
	via  atomic.Value // how a person's keys reached it (dialogline.go): "" none yet
	// answering: a person's answer is being typed (answer.go); announced
	// is the dialog the last agent_waiting named.
	answering atomic.Bool
	announced atomic.Pointer[announcement]
	// unknownAt: Unix nanos when the typist's Enter met an unknown screen
	// (unknownscreen.go); 0: none watched.
	unknownAt atomic.Int64
}

// dialogRecheck is when a dialog read once off the screen is read again.
const dialogRecheck = 250 * time.Millisecond

// dialogChoicesWait is how long a permission dialog drawn without its
// choices (Qwen Code draws them a moment after its question) waits for
// them before it is announced anyway: an answer needs them on the screen,
// and they are part of the dialog's id.
const dialogChoicesWait = 2 * time.Second

// hookGrace is how long a hook's word of a dialog holds against a screen
// that has shown only the prompt or a turn since.
const hookGrace = 3 * time.Second

// waiting reports whether the agent waits on a dialog now.
func (s *Session) waiting() bool { return s.dialog.cur != nil }

// dialogText is the text of the dialog the agent waits on (any goroutine).
func (s *Session) dialogText() string {
	t, _ := s.dialog.text.Load().(string)
	return t
}

// kept reports whether d is a limit dialog warden answers itself.
func kept(d profile.Dialog) bool {
	return d.Kind == profile.DialogLimit && d.Keep != nil && d.Keep.Keys != nil
}

// checkDialog reads every channel and moves the session in or out of the
// waiting state: agent_waiting once per dialog a person must answer,
// agent_resumed when it is gone. A limit dialog kept without waiting for
// the reset (Codex's model switch) is answered at once.
func (s *Session) checkDialog() {
	if s.prof.Mode != protocol.ModeScreen || s.mon == nil {
		return
	}
	d, onScreen, ok := s.currentDialog()
	// A hook's text: no escape sequence, and nothing invisible (U+202E),
	// reaches events, state.json or stdout.
	d.Text = protocol.Visible(profile.Sanitize(d.Text))
	w := &s.dialog
	now := s.cfg.Clock.Now()
	if !ok {
		w.bare = "" // a dialog drawn again later counts from then
	}
	if ok && onScreen && !s.secondRead(d) {
		return
	}
	switch {
	case ok && w.cur != nil && (!onScreen || !w.screen || sameDialog(d.Text, w.cur.Text)):
		// The same dialog, redrawn or seen through another channel: the
		// screen's text is the better one.
		if onScreen && !w.screen {
			w.cur, w.screen = &d, true
			s.dialog.text.Store(d.Text)
			if !w.kept {
				s.r.Waiting(&d)
			}
		}
	case ok:
		if w.cur != nil {
			s.log.Info("the dialog changed", "kind", d.Kind)
			if !w.kept && kept(d) {
				s.dialogGone(now) // the person's dialog is gone; the CLI's limit dialog is not theirs
			}
		}
		w.cur, w.screen, w.since, w.denied, w.kept = &d, onScreen, now, false, kept(d)
		s.dialog.text.Store(d.Text)
		s.dialog.via.Store("")
		s.dialog.up.Store(true)
		s.mon.wait(true, now)
		if w.kept {
			s.log.Info("the CLI's usage-limit dialog", "keep", d.Keep.Choice, "after_reset", d.Keep.AfterReset)
			break
		}
		id := s.announce(d.Text, onScreen) // before warden ps can show the dialog (DialogID)
		s.r.Waiting(&d)
		s.log.Warn("agent waits on a dialog", "kind", d.Kind, "text", protocol.FirstLine(d.Text), console.Printed, true)
		s.r.Event(event.AgentWaiting, event.Waiting{Kind: d.Kind, Text: d.Text, Question: dialogQuestion(d), DialogID: id,
			OnScreen: onScreen, SessionID: s.id}.KV()...)
		if w.unknownUp() {
			s.r.Printf("%s", unknownLine(s.cfg.Agent, d)) // never denied (unknownscreen.go)
		} else {
			s.r.Printf("%s", waitsLine(s.cfg.Agent, d, s.cfg.Dialog)) // and how to answer it (dialogline.go)
		}
	case w.cur != nil:
		if !w.kept {
			s.dialogGone(now)
		}
		w.cur, w.hook, w.kept, w.answered = nil, nil, false, ""
		s.dialog.up.Store(false)
		s.mon.wait(false, now)
	}
	if w.cur != nil && w.kept && !w.cur.Keep.AfterReset {
		s.answerLimitDialog() // keep the current model: changes nothing, sends nothing
	}
}

// secondRead reports whether a dialog read off the screen counts: a
// permission dialog at once once it lists its choices (or dialogChoicesWait
// after its question was first read without them), another kind once the
// same text is read again (dialogRecheck later, or at the next settle).
func (s *Session) secondRead(d profile.Dialog) bool {
	w := &s.dialog
	if w.cur != nil && w.cur.Text == d.Text {
		w.first = ""
		return true
	}
	if d.Kind == profile.DialogPermission && !profile.HasChoices(d.Text) {
		now, q := s.cfg.Clock.Now(), profile.QuestionOf(d.Text)
		if w.bare != q {
			w.bare, w.bareSince = q, now
		}
		if now.Sub(w.bareSince) < dialogChoicesWait {
			s.cfg.Clock.AfterFunc(dialogRecheck, func() { s.push(readerEvent{signals: true}) })
			return false
		}
	}
	w.bare = ""
	if d.Kind == profile.DialogPermission || w.first == d.Text {
		w.first = ""
		return true
	}
	w.first = d.Text
	s.cfg.Clock.AfterFunc(dialogRecheck, func() { s.push(readerEvent{signals: true}) })
	return false
}

// dialogGone ends the wait of a person's dialog: the agent's state,
// agent_resumed, and a line that says it closed and through what (unless
// warden denied it: its WARNING said so).
func (s *Session) dialogGone(now time.Time) {
	waited := now.Sub(s.dialog.since).Round(time.Second)
	via, _ := s.dialog.via.Load().(string)
	s.r.Waiting(nil)
	s.log.Info("the dialog is gone", "waited", waited, "via", via)
	kv := []any{"waited", waited.String(), "session_id", s.id}
	if via != "" {
		kv = append(kv, "via", via) // a person's keys reached it through warden
	}
	s.r.Event(event.AgentResumed, kv...)
	if line := closedLine(s.cfg.Agent, s.dialog.cur, waited, via); line != "" && !s.dialog.denied {
		s.r.Printf("%s", line)
	}
}

// answerLimitDialog answers the CLI's limit dialog up now with its keep
// keys, once: read again just before, and only if it is still that dialog.
// dialog_answered says so. It reports whether it answered.
func (s *Session) answerLimitDialog() bool {
	w := &s.dialog
	d, ok := s.prof.Dialog(s.screen())
	if !ok || !kept(d) || w.cur == nil || protocol.Visible(profile.Sanitize(d.Text)) != w.cur.Text || w.answered == w.cur.Text {
		return false
	}
	w.answered = w.cur.Text
	s.input.mu.Lock()
	for _, k := range d.Keep.Keys {
		s.cfg.Clock.Sleep(k.Pause)
		s.proc.Write(k.Bytes)
	}
	s.input.mu.Unlock()
	s.log.Info("the CLI's usage-limit dialog answered", "choice", d.Keep.Choice)
	s.r.Event(event.DialogAnswered, event.AnsweredByWarden{By: "warden", Choice: d.Keep.Choice, Kind: d.Kind, Text: w.cur.Text,
		SessionID: s.id}.KV()...)
	return true
}

// keepLimitDialog answers a limit dialog that is kept once the reset has
// passed (Gemini CLI's Keep trying, which sends the turn again), at the
// account's reset. It reports whether it did.
func (s *Session) keepLimitDialog() bool {
	w := &s.dialog
	return w.cur != nil && w.kept && w.cur.Keep.AfterReset && s.answerLimitDialog()
}

// currentDialog is the dialog the channels show now, the screen's first
// (it has the best text); onScreen says it was read off the screen.
func (s *Session) currentDialog() (d profile.Dialog, onScreen, ok bool) {
	scr := s.screen()
	if d, ok := s.prof.Dialog(scr); ok {
		return d, true, true
	}
	if c := s.dialog.channel; c != nil {
		return *c, false, true // the server's word holds until it says resolved
	}
	st, title, _ := s.modes.signals()
	if s.app.up {
		// The app-server's requests say it with their own text, at the
		// moment the CLI's status report and title would.
		st.State, title = "", ""
	}
	if st.Blocked() {
		kind := profile.DialogOther
		if st.Kind == "permission" {
			kind = profile.DialogPermission
		}
		return profile.Dialog{Kind: kind, Text: cmp.Or(st.Msg, "the CLI reports it is blocked on the user")}, false, true
	}
	if s.prof.WaitingTitle(title) {
		return profile.Dialog{Kind: profile.DialogOther, Text: strings.TrimSpace(title)}, false, true
	}
	if h := s.dialog.hook; h != nil {
		// The hook may come before warden has read the frame that draws its
		// dialog (the CLI runs it as it draws; under load warden reads the
		// pty later than the hook's socket, and what the CLI drew before
		// the dialog may be read after the hook): a prompt or a turn on the
		// screen ends the hook's word only once the screen has shown
		// something else since (the dialog), or hookGrace after the hook.
		movedOn := s.prof.Busy(scr) || s.prof.Ready(scr) || st.State == "working" || st.State == "idle"
		if !movedOn {
			s.dialog.hookSeen = true
		}
		if movedOn && (s.dialog.hookSeen || s.cfg.Clock.Now().Sub(s.dialog.hookAt) >= hookGrace) {
			s.dialog.hook = nil // it moved on
			return profile.Dialog{}, false, false
		}
		return *h, false, true
	}
	if d, ok := s.unknownDialog(scr); ok {
		return d, false, true
	}
	return profile.Dialog{}, false, false
}

// denyDue is when a dialog is to be denied (zero: never, or done). A
// limit dialog is never denied: it is answered, or a person answers it.
func (s *Session) denyDue() time.Time {
	w := &s.dialog
	if w.cur == nil || w.denied || !s.cfg.Dialog.Deny || w.cur.Kind == profile.DialogLimit || w.cur.PersonOnly || w.unknownUp() {
		return time.Time{}
	}
	return w.since.Add(s.cfg.Dialog.Timeout)
}

// deny answers the dialog with the CLI's deny keys, then queues the note
// that tells the agent to carry on (typed once the dialog is gone).
func (s *Session) deny() {
	w := &s.dialog
	w.denied = true
	if d, ok := s.prof.Dialog(s.screen()); ok && d.Kind == profile.DialogLimit {
		// Read again just before: the dialog is the CLI's limit dialog now.
		s.log.Info("not denied: the dialog is the CLI's usage-limit dialog")
		return
	}
	s.input.mu.Lock()
	for _, k := range s.prof.Deny() {
		s.cfg.Clock.Sleep(k.Pause)
		s.proc.Write(k.Bytes)
	}
	s.input.mu.Unlock()
	s.log.Warn("dialog denied after dialog_timeout", "dialog_timeout", s.cfg.Dialog.Timeout, console.Printed, true)
	s.r.Event(event.DialogDenied, "text", w.cur.Text, "kind", w.cur.Kind, "session_id", s.id)
	s.r.Printf("WARNING: %s's dialog was denied after %s: %s\n", s.cfg.Agent, s.cfg.Dialog.Timeout, protocol.FirstLine(w.cur.Text))
	s.typeText(denyNote(false))
}

// answerProbe tells a CLI that probed for OSC 7501 that this terminal
// supports it, so that it reports when it is blocked (not under warden
// wrap, where the user's terminal answers). It runs on the output's
// goroutine, which may see the first output before Start returned.
func (s *Session) answerProbe() {
	if s.cfg.Term != nil {
		return
	}
	_, _, probes := s.modes.signals()
	for s.modes.replied.Load() < int32(probes) {
		s.modes.replied.Add(1)
		if <-s.procReady; s.proc != nil {
			s.log.Debug("terminal reply to the agent", "bytes", strconv.Quote(string(profile.ProbeReply)))
			s.proc.Write(profile.ProbeReply)
		}
	}
}
