package session

import (
	"context"
	"fmt"
	"time"

	"github.com/wardenhq/warden/internal/clock"
	"github.com/wardenhq/warden/protocol"
	"github.com/wardenhq/warden/protocol/profile"
	"github.com/wardenhq/warden/supervisor/event"
)

// A person's answer to a Codex approval request goes to the app-server as
// the request's decision when warden reads the agent through it
// (channel.go): the answer is about that very request, never a key that
// lands in whatever the TUI shows by then.

// pendingRequest is the app-server request the agent waits on, for the
// answering goroutines: set and cleared by the loop.
type pendingRequest struct {
	id, method, text string
}

// decisions are the request methods whose response is {decision}, with
// each choice's decision (never one "for the session" or with an
// execpolicy amendment).
var decisions = map[string]map[string]string{
	"item/commandExecution/requestApproval": {profile.AnswerAllowOnce: "accept", profile.AnswerDeny: "decline"},
	"item/fileChange/requestApproval":       {profile.AnswerAllowOnce: "accept", profile.AnswerDeny: "decline"},
}

// setPending notes (or, with nil, forgets) the request the agent waits on.
func (s *Session) setPending(p *pendingRequest) { s.app.pending.Store(p) }

// answerByDecision answers the pending request with choice's decision and
// waits until the server says it resolved and the agent no longer waits;
// ok is false when there is no request to answer so (no channel, another
// kind of request): the keys are typed instead.
func (s *Session) answerByDecision(ctx context.Context, choice, via string) (a *Answered, ok bool, err error) {
	client := s.app.client.Load()
	p := s.app.pending.Load()
	if client == nil || p == nil || decisions[p.method] == nil {
		return nil, false, nil
	}
	decision := decisions[p.method][choice]
	if decision == "" {
		return nil, true, fmt.Errorf("%q cannot answer this request", choice)
	}
	d := profile.Dialog{Kind: profile.DialogPermission, Text: visibleText(p.text)}
	// Before the server can resolve it: the loop's closing of the dialog
	// then prints no DIALOG CLOSED line, this answer's DIALOG ANSWERED being
	// the one line of its outcome.
	prev, _ := s.dialog.via.Load().(string)
	s.typedIntoDialog(viaAnswer)
	if err := client.Respond(p.id, map[string]string{"decision": decision}); err != nil {
		s.dialog.via.CompareAndSwap(viaAnswer, prev)
		return nil, true, fmt.Errorf("send the decision to the app-server: %w", err)
	}
	sent := s.cfg.Clock.Now()
	for s.app.pending.Load() == p || s.dialog.up.Load() {
		if clock.Since(s.cfg.Clock, sent) > answerClose {
			return nil, true, fmt.Errorf("the decision %q was sent, but after %s the agent still waits", decision, answerClose)
		}
		select {
		case <-s.ended:
			return nil, true, ErrEnded
		case <-ctx.Done():
			return nil, true, fmt.Errorf("the decision %q was sent; no longer waiting for the dialog to close: %w", decision, ctx.Err())
		case <-s.cfg.Clock.After(10 * time.Millisecond):
		}
	}
	a = &Answered{Choice: choice, Kind: d.Kind, Question: dialogQuestion(d), DialogID: profile.DialogID(d.Text), Took: clock.Since(s.cfg.Clock, sent)}
	s.log.Info("a person answered the request through the app-server", "choice", choice, "decision", decision, "via", via, "took", a.Took)
	s.r.Event(event.DialogAnswered, event.AnsweredByPerson{By: "person", Via: via, Choice: choice, Kind: d.Kind, Text: d.Text,
		Question: a.Question, DialogID: a.DialogID, Through: "app-server", SessionID: s.id}.KV()...)
	s.r.Printf("DIALOG ANSWERED: %s's request (%s) %s by a person through %s, as Codex's own decision %q\n",
		s.cfg.Agent, protocol.FirstLine(a.Question), decisionWord(choice), viaText(via), decision)
	return a, true, nil
}

// decisionWord is what a person's choice did to the request: "declined"
// for a deny (whatever the CLI's transcript says of the command after),
// "allowed once" for allow-once.
func decisionWord(choice string) string {
	if choice == profile.AnswerDeny {
		return "declined"
	}
	return "allowed once"
}
